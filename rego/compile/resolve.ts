/**
 * Name resolution (OPA's ResolveRefs stage): vars naming rules of the module's package or imports
 * become refs into `data`/`input`; vars declared locally (args, `:=`, `some`, every key/value,
 * comprehension locals) shadow them.
 */
import type { Location } from '../errors.js';
import { mapLogic, type Expr, type Module, type Rule, type Term } from '../syntax/ast.js';
import { termVars } from '../syntax/walk.js';

export type Globals = Map<string, Term[]>;

function str(value: string, loc: Location): Term {
  return { type: 'scalar', value, loc };
}

/** Globals of a module: its package's rule names (across all modules of the package) and imports. */
export function moduleGlobals(mod: Module, packageRuleNames: Iterable<string>): Globals {
  const g: Globals = new Map();
  const loc = mod.package.loc;
  for (const name of packageRuleNames) {
    g.set(name, [{ type: 'var', name: 'data', loc }, ...mod.package.path.map((p) => str(p, loc)), str(name, loc)]);
  }
  for (const imp of mod.imports) {
    const path = imp.path.terms;
    const root = path[0]?.type === 'var' ? path[0].name : '';
    if (root !== 'data' && root !== 'input') continue;
    let name = imp.alias;
    if (name === undefined) {
      const last = path[path.length - 1]!;
      name = path.length === 1 ? root : String((last as { value: unknown }).value);
    }
    g.set(name, path);
  }
  return g;
}

class Scope {
  private readonly stack: Set<string>[] = [];
  push(s: Set<string>): void {
    this.stack.push(s);
  }
  pop(): void {
    this.stack.pop();
  }
  has(v: string): boolean {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i]!.has(v)) return true;
    return false;
  }
}

/** Vars declared in a body (not inside comprehensions): `:=` targets and `some` symbols. */
export function declaredVars(body: Expr[]): Set<string> {
  const out = new Set<string>();
  for (const e of body) {
    const t = e.terms;
    if (Array.isArray(t)) {
      const op = t[0];
      if (
        op?.type === 'ref' &&
        op.terms.length === 1 &&
        op.terms[0]!.type === 'var' &&
        op.terms[0]!.name === 'assign' &&
        t[1]
      ) {
        termVars(t[1], { skipClosures: true }, out);
      }
    } else if (t.type === 'some') {
      for (const s of t.symbols) {
        if (s.type === 'var') out.add(s.name);
        else if (s.type === 'call') {
          if (s.args.length === 3) termVars(s.args[1]!, { skipClosures: true }, out);
          termVars(s.args[0]!, { skipClosures: true }, out);
        }
      }
    }
  }
  return out;
}

export function resolveRule(rule: Rule, g: Globals): void {
  const ignore = new Scope();
  const argVars = new Set<string>();
  for (const a of rule.head.args ?? []) termVars(a, { skipClosures: true }, argVars);
  ignore.push(argVars);
  ignore.push(declaredVars(rule.body));
  const h = rule.head;
  h.ref = h.ref.map((t, i) => (i === 0 ? t : resolveTerm(t, g, ignore)));
  if (h.key) h.key = resolveTerm(h.key, g, ignore);
  if (h.value) h.value = resolveTerm(h.value, g, ignore);
  if (h.args) h.args = h.args.map((a) => resolveTerm(a, g, ignore));
  rule.body = resolveBody(rule.body, g, ignore);
  if (rule.else) resolveRule(rule.else, g);
}

export function resolveBody(body: Expr[], g: Globals, ignore = new Scope()): Expr[] {
  return body.map((e) => resolveExpr(e, g, ignore));
}

export { Scope };

function resolveExpr(e: Expr, g: Globals, ignore: Scope): Expr {
  const out: Expr = { ...e };
  const t = e.terms;
  if (Array.isArray(t)) out.terms = t.map((x) => resolveTerm(x, g, ignore));
  else if (t.type === 'some') {
    const s0 = t.symbols[0];
    if (s0?.type === 'call') out.terms = { ...t, symbols: [resolveTerm(s0, g, ignore)] };
  } else if (t.type === 'every') {
    const locals = new Set<string>();
    if (t.key) termVars(t.key, {}, locals);
    termVars(t.value, {}, locals);
    const domain = resolveTerm(t.domain, g, ignore);
    ignore.push(locals);
    ignore.push(declaredVars(t.body));
    out.terms = { ...t, domain, body: resolveBody(t.body, g, ignore) };
    ignore.pop();
    ignore.pop();
  } else if (t.type === 'logic') {
    out.terms = {
      ...t,
      node: mapLogic(t.node, (b) => {
        ignore.push(declaredVars(b));
        const r = resolveBody(b, g, ignore);
        ignore.pop();
        return r;
      }),
    };
  } else out.terms = resolveTerm(t, g, ignore);
  out.with = e.with.map((w) => ({
    ...w,
    target: resolveTerm(w.target, g, ignore),
    value: resolveTerm(w.value, g, ignore),
  }));
  return out;
}

function relocate(path: Term[], loc: Location): Term[] {
  return path.map((p) => ({ ...p, loc }));
}

export function resolveTerm(t: Term, g: Globals, ignore: Scope): Term {
  switch (t.type) {
    case 'var': {
      const p = g.get(t.name);
      if (p !== undefined && !ignore.has(t.name)) return { type: 'ref', terms: relocate(p, t.loc), loc: t.loc };
      return t;
    }
    case 'ref': {
      const out: Term[] = [];
      t.terms.forEach((x, i) => {
        if (x.type === 'var') {
          const p = g.get(x.name);
          if (p !== undefined && !ignore.has(x.name)) {
            if (i === 0) out.push(...relocate(p, x.loc));
            else out.push({ type: 'ref', terms: relocate(p, x.loc), loc: x.loc });
            return;
          }
          out.push(x);
        } else out.push(resolveTerm(x, g, ignore));
      });
      return { ...t, terms: out };
    }
    case 'array':
      return { ...t, items: t.items.map((x) => resolveTerm(x, g, ignore)) };
    case 'set':
      return { ...t, items: t.items.map((x) => resolveTerm(x, g, ignore)) };
    case 'object':
      return {
        ...t,
        items: t.items.map(([k, v]) => [resolveTerm(k, g, ignore), resolveTerm(v, g, ignore)] as [Term, Term]),
      };
    case 'call':
      return {
        ...t,
        fn: resolveTerm(t.fn, g, ignore) as typeof t.fn,
        args: t.args.map((x) => resolveTerm(x, g, ignore)),
      };
    case 'arraycompr':
    case 'setcompr': {
      ignore.push(declaredVars(t.body));
      const r = { ...t, head: resolveTerm(t.head, g, ignore), body: resolveBody(t.body, g, ignore) };
      ignore.pop();
      return r;
    }
    case 'objectcompr': {
      ignore.push(declaredVars(t.body));
      const r = {
        ...t,
        key: resolveTerm(t.key, g, ignore),
        value: resolveTerm(t.value, g, ignore),
        body: resolveBody(t.body, g, ignore),
      };
      ignore.pop();
      return r;
    }
    case 'template':
      return { ...t, parts: t.parts.map((p) => (typeof p === 'string' ? p : resolveExpr(p, g, ignore))) };
    default:
      return t;
  }
}
