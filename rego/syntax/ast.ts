/**
 * Rego's abstract syntax tree. Every node carries its source location. Shapes follow OPA's AST
 * (terms, expressions, rules with ref heads) so that compile checks and error texts can follow OPA.
 */
import type { Location } from '../errors.js';
import type { Value } from '../value.js';

export type Term =
  | ScalarTerm
  | VarTerm
  | RefTerm
  | ArrayTerm
  | ObjectTerm
  | SetTerm
  | ArrayComprehension
  | SetComprehension
  | ObjectComprehension
  | CallTerm
  | TemplateTerm;

interface Node {
  loc: Location;
}

/** null, boolean, number or string. */
export interface ScalarTerm extends Node {
  type: 'scalar';
  value: null | boolean | number | bigint | string;
  /** Source text of a number literal (OPA keeps number text, e.g. for 1.0). */
  text?: string;
}

export interface VarTerm extends Node {
  type: 'var';
  name: string;
}

/** `head.a[b]…` — head is a var (incl. `data`/`input`), or a composite/call term. */
export interface RefTerm extends Node {
  type: 'ref';
  terms: Term[];
}

export interface ArrayTerm extends Node {
  type: 'array';
  items: Term[];
}

export interface ObjectTerm extends Node {
  type: 'object';
  items: [Term, Term][];
}

export interface SetTerm extends Node {
  type: 'set';
  items: Term[];
}

export interface ArrayComprehension extends Node {
  type: 'arraycompr';
  head: Term;
  body: Expr[];
}

export interface SetComprehension extends Node {
  type: 'setcompr';
  head: Term;
  body: Expr[];
}

export interface ObjectComprehension extends Node {
  type: 'objectcompr';
  key: Term;
  value: Term;
  body: Expr[];
}

/** `f(a, b)` used as a term (nested call); `fn` is a ref (or var) naming the function. */
export interface CallTerm extends Node {
  type: 'call';
  fn: RefTerm;
  args: Term[];
}

/** `$"a {x} b"` — string parts and embedded expressions. */
export interface TemplateTerm extends Node {
  type: 'template';
  parts: (string | Expr)[];
}

export interface With extends Node {
  target: Term;
  value: Term;
}

export interface SomeDecl extends Node {
  type: 'some';
  /** plain `some x, y` declarations: vars; `some x in xs`/`some k, v in xs`: one call term to `internal.member_2/3` */
  symbols: Term[];
}

export interface Every extends Node {
  type: 'every';
  key?: Term;
  value: Term;
  domain: Term;
  body: Expr[];
}

/**
 * Experimental logic operators: `a and b`, `a or b`, `not {…}`, `(…)` groups. Every operand is a
 * body with its own scope, evaluated for success only (at most one result, nothing exported).
 */
export type LogicNode =
  | { kind: 'and' | 'or'; left: LogicNode; right: LogicNode }
  | { kind: 'not'; operand: LogicNode }
  | { kind: 'body'; body: Expr[] };

export interface Logic extends Node {
  type: 'logic';
  node: LogicNode;
}

/**
 * An expression (literal) of a body. `terms` is a single term, a call (operator ref first), a
 * `some` declaration or an `every`.
 */
export interface Expr extends Node {
  negated: boolean;
  terms: Term | Term[] | SomeDecl | Every | Logic;
  with: With[];
  /** Set on expressions the compiler generated (not user code). */
  generated?: boolean;
  /**
   * Set on the `=` the compiler makes of a `:=`: its right side is a read that must be safe on its
   * own, never made safe through the left side (OPA 1.19).
   */
  assigned?: boolean;
}

export interface Head extends Node {
  /** The rule's ref: first a var (name), then strings/terms. `p`, `p.q.r`, `p[x]`… */
  ref: Term[];
  args?: Term[];
  /** Multi-value (partial set) key, i.e. `p contains x` / v0 `p[x]`. */
  key?: Term;
  value?: Term;
  assign: boolean;
  /** `contains` keyword used */
  contains: boolean;
  /** `if` keyword used */
  ifKw: boolean;
  /** Value was not written (defaults to true). */
  generatedValue: boolean;
}

export interface Rule extends Node {
  default: boolean;
  head: Head;
  body: Expr[];
  else?: Rule;
  /** body was not written (`p := 1`, `p contains 1`) */
  generatedBody: boolean;
  /** Source text of the rule (for rego.metadata and error messages). */
  text: string;
  annotations?: Annotations;
  module?: Module;
}

export interface Import extends Node {
  /** ref term: data.x.y / input.x / future.keywords.x / rego.v1 */
  path: RefTerm;
  alias?: string;
}

export interface Package extends Node {
  /** `data` followed by string path segments */
  path: string[];
}

export interface Annotations extends Node {
  scope: string;
  title?: string;
  description?: string;
  entrypoint?: boolean;
  /** Everything parsed from the METADATA block, as OPA returns it from rego.metadata.* */
  value: Value;
}

export interface Comment extends Node {
  text: string;
}

export interface Module {
  file: string;
  source: string;
  regoVersion: 'v0' | 'v1';
  package: Package;
  imports: Import[];
  rules: Rule[];
  comments: Comment[];
  annotations: Annotations[];
}

export function isVar(t: Term | undefined, name?: string): t is VarTerm {
  return t !== undefined && t.type === 'var' && (name === undefined || t.name === name);
}

export function isWildcard(name: string): boolean {
  return name.startsWith('$');
}

/** Expression classification helpers. */
export function exprCall(e: Expr): Term[] | undefined {
  return Array.isArray(e.terms) ? e.terms : undefined;
}

export function exprTerm(e: Expr): Term | undefined {
  const t = e.terms;
  return !Array.isArray(t) && t.type !== 'some' && t.type !== 'every' && t.type !== 'logic' ? (t as Term) : undefined;
}

/** Name of a call's operator (`eq`, `assign`, `plus`, `data.x.f`…). */
export function operatorName(op: Term): string {
  if (op.type === 'var') return op.name;
  if (op.type === 'ref') return refName(op.terms);
  return '?';
}

/** Dotted name of a ref whose parts are a var followed by strings; `undefined` otherwise. */
export function refName(terms: Term[]): string {
  let s = '';
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (i === 0) {
      if (t.type !== 'var') return '?';
      s = t.name;
    } else if (t.type === 'scalar' && typeof t.value === 'string') s += `.${t.value}`;
    else return '?';
  }
  return s;
}

/** The bodies of a logic tree, left to right. */
export function logicBodies(n: LogicNode, out: Expr[][] = []): Expr[][] {
  if (n.kind === 'body') out.push(n.body);
  else if (n.kind === 'not') logicBodies(n.operand, out);
  else {
    logicBodies(n.left, out);
    logicBodies(n.right, out);
  }
  return out;
}

/** The same tree with every body mapped. */
export function mapLogic(n: LogicNode, f: (body: Expr[]) => Expr[]): LogicNode {
  if (n.kind === 'body') return { kind: 'body', body: f(n.body) };
  if (n.kind === 'not') return { kind: 'not', operand: mapLogic(n.operand, f) };
  return { kind: n.kind, left: mapLogic(n.left, f), right: mapLogic(n.right, f) };
}
