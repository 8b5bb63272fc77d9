/** Renaming vars in terms and expressions (used for local-variable rewriting of heads and bodies). */
import { mapLogic, type Expr, type Term } from '../syntax/ast.js';

/** Renames vars (not inside closures' own declarations — those are already unique). */
export function renameVars(t: Term, f: (v: string) => string | undefined): Term {
  switch (t.type) {
    case 'var': {
      const n = f(t.name);
      return n !== undefined && n !== t.name ? { ...t, name: n } : t;
    }
    case 'ref':
      return { ...t, terms: t.terms.map((x) => renameVars(x, f)) };
    case 'array':
      return { ...t, items: t.items.map((x) => renameVars(x, f)) };
    case 'set':
      return { ...t, items: t.items.map((x) => renameVars(x, f)) };
    case 'object':
      return { ...t, items: t.items.map(([k, v]) => [renameVars(k, f), renameVars(v, f)] as [Term, Term]) };
    case 'call':
      return { ...t, args: t.args.map((x) => renameVars(x, f)) };
    case 'arraycompr':
    case 'setcompr':
      return { ...t, head: renameVars(t.head, f), body: t.body.map((e) => renameExpr(e, f)) };
    case 'objectcompr':
      return {
        ...t,
        key: renameVars(t.key, f),
        value: renameVars(t.value, f),
        body: t.body.map((e) => renameExpr(e, f)),
      };
    case 'template':
      return { ...t, parts: t.parts.map((p) => (typeof p === 'string' ? p : renameExpr(p, f))) };
    default:
      return t;
  }
}

export function renameExpr(e: Expr, f: (v: string) => string | undefined): Expr {
  const t = e.terms;
  const withs = e.with.map((w) => ({ ...w, value: renameVars(w.value, f) }));
  if (Array.isArray(t)) return { ...e, terms: t.map((x) => renameVars(x, f)), with: withs };
  if (t.type === 'some') return { ...e, terms: { ...t, symbols: t.symbols.map((x) => renameVars(x, f)) }, with: withs };
  if (t.type === 'every') {
    return {
      ...e,
      with: withs,
      terms: {
        ...t,
        domain: renameVars(t.domain, f),
        value: renameVars(t.value, f),
        ...(t.key ? { key: renameVars(t.key, f) } : {}),
        body: t.body.map((x) => renameExpr(x, f)),
      },
    };
  }
  if (t.type === 'logic')
    return { ...e, terms: { ...t, node: mapLogic(t.node, (b) => b.map((x) => renameExpr(x, f))) }, with: withs };
  return { ...e, terms: renameVars(t, f), with: withs };
}

/** Applies `f` to every comprehension inside a term (used for heads). */
export function mapClosures(t: Term, f: (c: Term) => Term): Term {
  switch (t.type) {
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
    case 'template':
      return f(t);
    case 'ref':
      return { ...t, terms: t.terms.map((x) => mapClosures(x, f)) };
    case 'array':
      return { ...t, items: t.items.map((x) => mapClosures(x, f)) };
    case 'set':
      return { ...t, items: t.items.map((x) => mapClosures(x, f)) };
    case 'object':
      return { ...t, items: t.items.map(([k, v]) => [mapClosures(k, f), mapClosures(v, f)] as [Term, Term]) };
    case 'call':
      return { ...t, args: t.args.map((x) => mapClosures(x, f)) };
    default:
      return t;
  }
}
