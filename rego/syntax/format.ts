/** Helpers over terms shared by the parser and the compiler: names, short texts, groundness. */
import type { Location } from '../errors.js';
import type { Expr, Term } from './ast.js';
import { BASE_KEYWORDS, FUTURE_KEYWORDS } from './tokens.js';

export function trueExpr(loc: Location): Expr {
  return { loc, negated: false, with: [], terms: { type: 'scalar', value: true, loc }, generated: true };
}

export function headName(ref: Term[]): string {
  return ref
    .map((t, i) => {
      if (i === 0) return t.type === 'var' ? t.name : '?';
      if (t.type === 'scalar' && typeof t.value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value))
        return `.${t.value}`;
      return `[${termText(t)}]`;
    })
    .join('');
}

/** Short Rego text of a term, for messages. */
export function termText(t: Term): string {
  switch (t.type) {
    case 'scalar':
      return typeof t.value === 'string' ? JSON.stringify(t.value) : String(t.value);
    case 'var':
      return t.name;
    case 'ref':
      return headName(t.terms);
    case 'array':
      return `[${t.items.map(termText).join(', ')}]`;
    case 'set':
      return t.items.length === 0 ? 'set()' : `{${t.items.map(termText).join(', ')}}`;
    case 'object':
      return `{${t.items.map(([k, v]) => `${termText(k)}: ${termText(v)}`).join(', ')}}`;
    case 'call':
      return `${termText(t.fn)}(${t.args.map(termText).join(', ')})`;
    default:
      return t.type;
  }
}

export function termTypeName(t: Term): string {
  switch (t.type) {
    case 'scalar':
      if (t.value === null) return 'null';
      if (typeof t.value === 'boolean') return 'boolean';
      if (typeof t.value === 'string') return 'string';
      return 'number';
    case 'arraycompr':
      return 'arraycomprehension';
    case 'setcompr':
      return 'setcomprehension';
    case 'objectcompr':
      return 'objectcomprehension';
    case 'template':
      return 'templatestring';
    default:
      return t.type;
  }
}

export function isGround(t: Term): boolean {
  return findInTerm(t, (x) => x.type === 'var') === undefined;
}

/** First sub-term (pre-order, not descending into comprehension bodies) matching `pred`. */
export function findInTerm(t: Term, pred: (t: Term) => boolean): Term | undefined {
  if (pred(t)) return t;
  switch (t.type) {
    case 'ref':
      for (const x of t.terms) {
        const r = findInTerm(x, pred);
        if (r) return r;
      }
      return undefined;
    case 'array':
    case 'set':
      for (const x of t.items) {
        const r = findInTerm(x, pred);
        if (r) return r;
      }
      return undefined;
    case 'object':
      for (const [k, v] of t.items) {
        const r = findInTerm(k, pred) ?? findInTerm(v, pred);
        if (r) return r;
      }
      return undefined;
    case 'call':
      for (const x of t.args) {
        const r = findInTerm(x, pred);
        if (r) return r;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The keywords of each version: v1 has the future keywords without an import. */
const V0_KEYWORDS: ReadonlySet<string> = new Set(BASE_KEYWORDS);
const V1_KEYWORDS: ReadonlySet<string> = new Set([...BASE_KEYWORDS, ...FUTURE_KEYWORDS]);

export function isKeywordIn(name: string, v: 'v0' | 'v1'): boolean {
  return (v === 'v1' ? V1_KEYWORDS : V0_KEYWORDS).has(name);
}
