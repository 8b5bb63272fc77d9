/**
 * Safety (OPA's CheckSafetyRuleBodies / reorderBodyForSafety): every var must be bound by some
 * expression before it is used as an input. Bodies are reordered minimally so that evaluation left
 * to right never meets an unbound input; what cannot be made safe is reported as unsafe.
 */
import { logicBodies, mapLogic, type Every, type Expr, type Term } from '../syntax/ast.js';
import { callName, exprVars, termVars } from '../syntax/walk.js';
import { Unifier } from './unifier.js';

/** What safety needs to know about the world: arities of functions and which with-values name functions. */
export interface SafetyEnv {
  /** number of input arguments of a builtin or user function; -1 if unknown */
  arity(name: string): number;
  /** `with f as g`: is `g` a function (builtin or user function) rather than a local value? */
  isFunctionValue(t: Term): boolean;
}

const SAFETY = { skipClosures: true, skipCallOp: true } as const;

export function isGenerated(v: string): boolean {
  return v.startsWith('$') || v.startsWith('__local');
}

/** Vars an expression mentions, for safety purposes (no closures, no call operators, no with targets). */
export function safetyVars(e: Expr, env?: SafetyEnv): Set<string> {
  const out = new Set<string>();
  const t = e.terms;
  if (Array.isArray(t)) for (let i = 1; i < t.length; i++) termVars(t[i]!, SAFETY, out);
  else if (t.type === 'every') termVars((t as Every).domain, SAFETY, out);
  else if (t.type === 'some' || t.type === 'logic') {
    // declarations only / logic operands are closures
  } else termVars(t as Term, SAFETY, out);
  for (const w of e.with) {
    if (env?.isFunctionValue(w.value)) continue;
    termVars(w.value, SAFETY, out);
  }
  return out;
}

function isRefSafe(t: Extract<Term, { type: 'ref' }>, safe: Set<string>): boolean {
  const h = t.terms[0]!;
  if (h.type === 'var') return safe.has(h.name);
  if (h.type === 'call') return h.args.every((a) => [...termVars(a, SAFETY)].every((v) => safe.has(v)));
  return [...termVars(h, SAFETY)].every((v) => safe.has(v));
}

function refOutputVars(t: Extract<Term, { type: 'ref' }>, out: Set<string>): void {
  for (let i = 1; i < t.terms.length; i++) termVars(t.terms[i]!, { skipRefHead: true, skipClosures: true }, out);
}

/** Output vars of safe refs found in terms (not inside closures). */
function outputVarsForTerms(terms: Term[], safe: Set<string>): Set<string> {
  const out = new Set<string>();
  const visit = (t: Term): void => {
    switch (t.type) {
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
      case 'template':
        return;
      case 'ref':
        if (!isRefSafe(t, safe)) return;
        refOutputVars(t, out);
        for (const x of t.terms) visit(x);
        return;
      case 'array':
      case 'set':
        t.items.forEach(visit);
        return;
      case 'object':
        for (const [k, v] of t.items) {
          visit(k);
          visit(v);
        }
        return;
      case 'call':
        t.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  terms.forEach(visit);
  return out;
}

function withoutVars(safe: Set<string>, drop: Set<string>): Set<string> {
  if (![...drop].some((v) => safe.has(v))) return safe;
  return new Set([...safe].filter((v) => !drop.has(v)));
}

function opName(e: Expr): string {
  return Array.isArray(e.terms) ? callName(e.terms) : '';
}

export function outputVarsForExpr(e: Expr, env: SafetyEnv, safe: Set<string>): Set<string> {
  if (e.negated) return new Set();
  for (const w of e.with) {
    if (env.isFunctionValue(w.value)) continue;
    for (const v of termVars(w.value, SAFETY)) if (!safe.has(v)) return new Set();
  }
  const t = e.terms;
  if (!Array.isArray(t)) {
    if (t.type === 'every') return outputVarsForTerms([(t as Every).domain], safe);
    if (t.type === 'some' || t.type === 'logic') return new Set();
    return outputVarsForTerms([t as Term], safe);
  }
  const name = opName(e);
  if (name === 'eq' || name === 'assign') {
    if (t.length !== 3) return new Set();
    // NB: for `x := y` the left side's vars are no basis: a later `x = 7` must not make `y` safe.
    if (e.assigned) safe = withoutVars(safe, termVars(t[1]!, SAFETY));
    const out = outputVarsForTerms(t.slice(1), safe);
    const all = new Set([...safe, ...out]);
    const u = new Unifier(all);
    u.unify(t[1]!, t[2]!);
    for (const v of u.unified) out.add(v);
    for (const v of safe) out.delete(v);
    return out;
  }
  const ar = env.arity(name);
  if (ar < 0) return new Set();
  const out = outputVarsForTerms(t.slice(1), safe);
  const numInput = ar + 1;
  if (numInput >= t.length) return out;
  const params = { skipClosures: true, skipRefHead: true } as const;
  for (const a of t.slice(1, numInput)) {
    for (const v of termVars(a, params)) if (!out.has(v) && !safe.has(v)) return new Set();
  }
  for (const a of t.slice(numInput)) termVars(a, params, out);
  return out;
}

export function outputVarsForBody(body: Expr[], env: SafetyEnv, safe: Set<string>): Set<string> {
  const o = new Set(safe);
  for (const e of body) for (const v of outputVarsForExpr(e, env, o)) o.add(v);
  for (const v of safe) o.delete(v);
  return o;
}

export type Unsafe = Map<Expr, Set<string>>;

function addUnsafe(u: Unsafe, e: Expr, v: string): void {
  let s = u.get(e);
  if (!s) u.set(e, (s = new Set()));
  s.add(v);
}

/** Vars inside closures (comprehensions, every bodies, templates) of an expression. */
function closureVars(e: Expr): Set<string> {
  const out = new Set<string>();
  const visitTerm = (t: Term): void => {
    switch (t.type) {
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
      case 'template':
        termVars(t, {}, out);
        return;
      case 'ref':
        t.terms.forEach(visitTerm);
        return;
      case 'array':
      case 'set':
        t.items.forEach(visitTerm);
        return;
      case 'object':
        for (const [k, v] of t.items) {
          visitTerm(k);
          visitTerm(v);
        }
        return;
      case 'call':
        t.args.forEach(visitTerm);
        return;
      default:
        return;
    }
  };
  const t = e.terms;
  if (Array.isArray(t)) t.forEach(visitTerm);
  else if (t.type === 'every') {
    const ev = t as Every;
    visitTerm(ev.domain);
    for (const b of ev.body) {
      const bv = new Set<string>();
      for (const x of [b]) {
        const terms = x.terms;
        if (Array.isArray(terms)) terms.forEach((y) => termVars(y, {}, bv));
        else if (terms.type !== 'some' && terms.type !== 'every') termVars(terms as Term, {}, bv);
        else if (terms.type === 'every') for (const v of closureVarsOfEvery(terms as Every)) bv.add(v);
      }
      for (const v of bv) out.add(v);
    }
  } else if (t.type === 'logic') {
    for (const b of logicBodies(t.node)) for (const x of b) exprVars(x, {}, out);
  } else if (t.type !== 'some') visitTerm(t as Term);
  for (const w of e.with) visitTerm(w.value);
  return out;
}

function closureVarsOfEvery(ev: Every): Set<string> {
  const out = new Set<string>();
  termVars(ev.domain, {}, out);
  for (const b of ev.body) for (const v of closureVars(b)) out.add(v);
  for (const b of ev.body) for (const v of safetyVars(b)) out.add(v);
  return out;
}

function bodyVars(body: Expr[], env: SafetyEnv): Set<string> {
  const out = new Set<string>();
  for (const e of body) for (const v of safetyVars(e, env)) out.add(v);
  return out;
}

function reorderForClosures(env: SafetyEnv, globals: Set<string>, body: Expr[]): [Expr[], Unsafe] {
  const reordered: Expr[] = [];
  const placed = new Set<Expr>();
  const unsafe: Unsafe = new Map();
  const bv = bodyVars(body, env);
  for (;;) {
    const n = reordered.length;
    for (const e of body) {
      if (placed.has(e)) continue;
      const cv = [...closureVars(e)].filter((v) => bv.has(v) && !globals.has(v));
      const outs = outputVarsForBody(reordered, env, globals);
      const uv = cv.filter((v) => !outs.has(v));
      if (uv.length === 0) {
        reordered.push(e);
        placed.add(e);
        unsafe.delete(e);
      } else unsafe.set(e, new Set(uv));
    }
    if (reordered.length === n) break;
  }
  return [reordered, unsafe];
}

/** Returns the reordered body and what stayed unsafe (empty when the body is safe). */
export function reorderBodyForSafety(env: SafetyEnv, globals: Set<string>, body0: Expr[]): [Expr[], Unsafe] {
  const [body, unsafe0] = reorderForClosures(env, globals, body0);
  if (unsafe0.size > 0) return [body0, unsafe0];
  const unsafe: Unsafe = new Map();
  const safe = new Set<string>();
  for (const e of body) {
    for (const v of safetyVars(e, env)) {
      if (globals.has(v)) safe.add(v);
      else addUnsafe(unsafe, e, v);
    }
  }
  const reordered: Expr[] = [];
  const placed = new Set<Expr>();
  for (;;) {
    const n = reordered.length;
    for (const e of body) {
      if (placed.has(e)) continue;
      for (const v of outputVarsForExpr(e, env, safe)) safe.add(v);
      const u = unsafe.get(e);
      if (u) for (const v of [...u]) if (safe.has(v)) u.delete(v);
      if (!u || u.size === 0) {
        unsafe.delete(e);
        reordered.push(e);
        placed.add(e);
      }
    }
    if (reordered.length === n) break;
  }
  // Closures: their bodies may use vars bound by earlier expressions.
  const g = new Set(globals);
  const out: Expr[] = [];
  reordered.forEach((e, i) => {
    if (i > 0) for (const v of safetyVars(reordered[i - 1]!, env)) g.add(v);
    out.push(reorderClosures(e, env, g, unsafe));
  });
  // Keep unplaced expressions (unsafe) at the end so errors can point at them.
  for (const e of body) if (!placed.has(e)) out.push(e);
  return [out, unsafe];
}

function reorderClosures(e: Expr, env: SafetyEnv, globals: Set<string>, unsafe: Unsafe): Expr {
  const closure = (headVars: Set<string>, body: Expr[]): Expr[] => {
    const bv = bodyVars(body, env);
    for (const v of headVars) if (!bv.has(v) && !globals.has(v)) addUnsafe(unsafe, e, v);
    const [r, u] = reorderBodyForSafety(env, globals, body);
    for (const [ex, vs] of u) for (const v of vs) addUnsafe(unsafe, ex, v);
    return r;
  };
  const term = (t: Term): Term => {
    switch (t.type) {
      case 'arraycompr':
      case 'setcompr':
        return { ...t, body: closure(termVars(t.head), t.body) };
      case 'objectcompr': {
        const hv = termVars(t.key);
        termVars(t.value, {}, hv);
        return { ...t, body: closure(hv, t.body) };
      }
      case 'ref':
        return { ...t, terms: t.terms.map(term) };
      case 'array':
        return { ...t, items: t.items.map(term) };
      case 'set':
        return { ...t, items: t.items.map(term) };
      case 'object':
        return { ...t, items: t.items.map(([k, v]) => [term(k), term(v)] as [Term, Term]) };
      case 'call':
        return { ...t, args: t.args.map(term) };
      default:
        return t;
    }
  };
  const t = e.terms;
  const withs = e.with.map((w) => ({ ...w, value: term(w.value) }));
  if (Array.isArray(t)) return { ...e, terms: t.map(term), with: withs };
  if (t.type === 'every') {
    const ev = t as Every;
    const g2 = new Set(globals);
    if (ev.key) termVars(ev.key, {}, g2);
    termVars(ev.value, {}, g2);
    const [r, u] = reorderBodyForSafety(env, g2, ev.body);
    for (const [ex, vs] of u) for (const v of vs) addUnsafe(unsafe, ex, v);
    return { ...e, terms: { ...ev, domain: term(ev.domain), body: r }, with: withs };
  }
  if (t.type === 'some') return e;
  if (t.type === 'logic') {
    const node = mapLogic(t.node, (b) => {
      const [r, u] = reorderBodyForSafety(env, globals, b);
      for (const [ex, vs] of u) for (const v of vs) addUnsafe(unsafe, ex, v);
      return r;
    });
    return { ...e, terms: { ...t, node }, with: withs };
  }
  return { ...e, terms: term(t as Term), with: withs };
}
