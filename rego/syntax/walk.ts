/** Generic traversals over terms, expressions and bodies (used by every compile stage). */
import { logicBodies, type Every, type Expr, type SomeDecl, type Term } from './ast.js';

/** Visits every term (pre-order). Return true from `fn` to skip the node's children. */
export function walkTerm(t: Term, fn: (t: Term) => boolean | void): void {
  if (fn(t) === true) return;
  switch (t.type) {
    case 'ref':
      for (const x of t.terms) walkTerm(x, fn);
      break;
    case 'array':
    case 'set':
      for (const x of t.items) walkTerm(x, fn);
      break;
    case 'object':
      for (const [k, v] of t.items) {
        walkTerm(k, fn);
        walkTerm(v, fn);
      }
      break;
    case 'call':
      walkTerm(t.fn, fn);
      for (const x of t.args) walkTerm(x, fn);
      break;
    case 'arraycompr':
    case 'setcompr':
      walkTerm(t.head, fn);
      walkBody(t.body, fn);
      break;
    case 'objectcompr':
      walkTerm(t.key, fn);
      walkTerm(t.value, fn);
      walkBody(t.body, fn);
      break;
    case 'template':
      for (const p of t.parts) if (typeof p !== 'string') walkExpr(p, fn);
      break;
    default:
      break;
  }
}

export function walkExpr(e: Expr, fn: (t: Term) => boolean | void): void {
  const terms = e.terms;
  if (Array.isArray(terms)) for (const t of terms) walkTerm(t, fn);
  else if (terms.type === 'some') for (const s of (terms as SomeDecl).symbols) walkTerm(s, fn);
  else if (terms.type === 'every') {
    const ev = terms as Every;
    if (ev.key) walkTerm(ev.key, fn);
    walkTerm(ev.value, fn);
    walkTerm(ev.domain, fn);
    walkBody(ev.body, fn);
  } else if (terms.type === 'logic') {
    for (const b of logicBodies(terms.node)) walkBody(b, fn);
  } else walkTerm(terms as Term, fn);
  for (const w of e.with) {
    walkTerm(w.target, fn);
    walkTerm(w.value, fn);
  }
}

export function walkBody(body: Expr[], fn: (t: Term) => boolean | void): void {
  for (const e of body) walkExpr(e, fn);
}

export interface VarOpts {
  /** do not descend into comprehensions/every bodies */
  skipClosures?: boolean;
  /** skip the head var of refs (e.g. `data` / `input` / function names) */
  skipRefHead?: boolean;
  /** skip the operator of calls */
  skipCallOp?: boolean;
}

/** Names of vars occurring in a term. */
export function termVars(t: Term, opts: VarOpts = {}, out = new Set<string>()): Set<string> {
  walkTerm(t, (x) => {
    switch (x.type) {
      case 'var':
        out.add(x.name);
        return true;
      case 'ref': {
        const [h, ...rest] = x.terms;
        if (h && !(opts.skipRefHead && h.type === 'var')) termVars(h, opts, out);
        for (const r of rest) termVars(r, opts, out);
        return true;
      }
      case 'call':
        if (!opts.skipCallOp) termVars(x.fn, opts, out);
        for (const a of x.args) termVars(a, opts, out);
        return true;
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
      case 'template':
        return opts.skipClosures === true;
      default:
        return false;
    }
  });
  return out;
}

export function exprVars(e: Expr, opts: VarOpts = {}, out = new Set<string>()): Set<string> {
  const terms = e.terms;
  if (Array.isArray(terms)) {
    terms.forEach((t, i) => {
      if (i === 0 && opts.skipCallOp) return;
      termVars(t, opts, out);
    });
  } else if (terms.type === 'some') for (const s of (terms as SomeDecl).symbols) termVars(s, opts, out);
  else if (terms.type === 'every') {
    const ev = terms as Every;
    termVars(ev.domain, opts, out);
    if (!opts.skipClosures) {
      if (ev.key) termVars(ev.key, opts, out);
      termVars(ev.value, opts, out);
      for (const b of ev.body) exprVars(b, opts, out);
    }
  } else if (terms.type === 'logic') {
    if (!opts.skipClosures) for (const b of logicBodies(terms.node)) for (const x of b) exprVars(x, opts, out);
  } else termVars(terms as Term, opts, out);
  for (const w of e.with) {
    termVars(w.value, opts, out);
  }
  return out;
}

/** Maps terms bottom-up-ish: `fn` may return a replacement; children of the result are then mapped. */
export function mapTerm(t: Term, fn: (t: Term) => Term | undefined): Term {
  const r = fn(t);
  const x = r ?? t;
  if (r !== undefined && r !== t) return r;
  switch (x.type) {
    case 'ref':
      return { ...x, terms: x.terms.map((y) => mapTerm(y, fn)) };
    case 'array':
      return { ...x, items: x.items.map((y) => mapTerm(y, fn)) };
    case 'set':
      return { ...x, items: x.items.map((y) => mapTerm(y, fn)) };
    case 'object':
      return { ...x, items: x.items.map(([k, v]) => [mapTerm(k, fn), mapTerm(v, fn)] as [Term, Term]) };
    case 'call':
      return { ...x, fn: mapTerm(x.fn, fn) as typeof x.fn, args: x.args.map((y) => mapTerm(y, fn)) };
    default:
      return x;
  }
}

export function isCallExpr(e: Expr): e is Expr & { terms: Term[] } {
  return Array.isArray(e.terms);
}

/** Operator name of a call expression (`eq`, `assign`, `count`, `data.pkg.f` …). */
export function callName(terms: Term[]): string {
  const op = terms[0];
  if (op === undefined) return '';
  if (op.type === 'var') return op.name;
  if (op.type !== 'ref') return '';
  let s = '';
  for (let i = 0; i < op.terms.length; i++) {
    const p = op.terms[i]!;
    if (i === 0) {
      if (p.type !== 'var') return '';
      s = p.name;
    } else if (p.type === 'scalar' && typeof p.value === 'string') s += `.${p.value}`;
    else return '';
  }
  return s;
}
