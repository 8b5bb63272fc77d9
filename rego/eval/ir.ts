/**
 * The evaluation plan: rule bodies lowered once at compile time to a compact form where variables
 * are frame slots and ground terms are precomputed values, so that evaluation does no name lookups
 * and no re-parsing.
 */
import type { Builtin } from '../builtins/registry.js';
import type { Location } from '../errors.js';
import type { Value } from '../value.js';
import type { UNDEFINED } from './scope.js';

export type TermIR =
  | { readonly k: 'c'; readonly v: Value }
  | { readonly k: 'v'; readonly s: number; readonly n: string }
  | { readonly k: 'ref'; readonly head: TermIR; readonly path: readonly TermIR[] }
  // g: every key of the path is a constant (the term has exactly one value or none: see `single`)
  // pre: where walks of this ground-prefixed path start, filled on first use (see walkStart in documents.ts)
  | { readonly k: 'data'; readonly path: readonly TermIR[]; readonly g?: boolean; pre?: PathPrefix }
  | { readonly k: 'input'; readonly path: readonly TermIR[]; readonly g?: boolean }
  | { readonly k: 'arr'; readonly items: readonly TermIR[] }
  | { readonly k: 'obj'; readonly items: readonly (readonly [TermIR, TermIR])[] }
  | { readonly k: 'set'; readonly items: readonly TermIR[] }
  | { readonly k: 'ac'; readonly head: TermIR; readonly body: BodyIR }
  | { readonly k: 'sc'; readonly head: TermIR; readonly body: BodyIR }
  | { readonly k: 'oc'; readonly key: TermIR; readonly value: TermIR; readonly body: BodyIR };

export type DataTermIR = Extract<TermIR, { k: 'data' }>;

/** The rule-tree node a data path reaches through package nodes alone, from the root: its first `depth` keys. */
export interface PathPrefix {
  readonly root: NodeIR;
  readonly node: NodeIR;
  readonly depth: number;
}

export type BodyIR = readonly ExprIR[];

/** Where a call goes: a builtin, a user function (rule node), or unknown (resolved against `with`). */
export interface CallIR {
  readonly name: string;
  readonly builtin?: Builtin;
  readonly fn?: NodeIR;
  readonly args: readonly TermIR[];
  /** output argument (beyond the function's arity) */
  readonly out?: TermIR;
  /** the builtin's memo for this call site (CallSite) */
  memo: unknown;
}

export interface WithIR {
  readonly kind: 'input' | 'data' | 'fn';
  /** input/data: path below the root (ground keys); fn: the function's name */
  readonly path: readonly string[];
  readonly fnName: string;
  readonly value: TermIR;
  /** fn: the replacement is a function (builtin or user function) rather than a value */
  readonly fnValue?: { readonly name: string; readonly builtin?: Builtin; readonly fn?: NodeIR };
  readonly loc: Location;
}

export type ExprIR =
  | {
      readonly op: 'term';
      readonly neg: boolean;
      readonly with?: readonly WithIR[];
      readonly loc: Location;
      readonly t: TermIR;
    }
  | {
      readonly op: 'unify';
      readonly neg: boolean;
      readonly with?: readonly WithIR[];
      readonly loc: Location;
      readonly a: TermIR;
      readonly b: TermIR;
      /** `out = coll[key]` with two different vars (what `some out in coll` lowers to): see IterIR */
      readonly iter?: IterIR;
    }
  | {
      readonly op: 'call';
      readonly neg: boolean;
      readonly with?: readonly WithIR[];
      readonly loc: Location;
      readonly call: CallIR;
    }
  | {
      readonly op: 'every';
      readonly neg: boolean;
      readonly with?: readonly WithIR[];
      readonly loc: Location;
      readonly key?: TermIR;
      readonly value: TermIR;
      readonly domain: TermIR;
      readonly body: BodyIR;
    }
  | {
      readonly op: 'logic';
      readonly neg: boolean;
      readonly with?: readonly WithIR[];
      readonly loc: Location;
      readonly node: LogicIR;
    };

/**
 * An iteration `out = coll[key]` (either side), precomputed at lowering: when neither var is bound and `coll`
 * has one value, the evaluator loops over the collection itself instead of unifying through continuations.
 */
export interface IterIR {
  /** the ref without its last key */
  readonly coll: TermIR;
  readonly key: number;
  readonly out: number;
}

/** Experimental `and`/`or`/`not {…}`: operands are bodies checked for success only. */
export type LogicIR =
  | { readonly kind: 'and' | 'or'; readonly left: LogicIR; readonly right: LogicIR }
  | { readonly kind: 'not'; readonly operand: LogicIR }
  | { readonly kind: 'body'; readonly body: BodyIR };

export type RuleKind = 'complete' | 'multi' | 'object' | 'function';

export interface RuleIR {
  readonly kind: RuleKind;
  readonly loc: Location;
  readonly nslots: number;
  readonly args?: readonly TermIR[];
  /** dynamic ref parts after the node path (object/multi rules with general ref heads) */
  readonly suffix: readonly TermIR[];
  /** multi-value member */
  readonly key?: TermIR;
  readonly value?: TermIR;
  readonly body: BodyIR;
  readonly else?: RuleIR;
  /** head has no vars: one solution of the body is enough */
  readonly ground: boolean;
  readonly text: string;
  /** rego.metadata.rule() value */
  readonly annotations?: Value;
  readonly chain?: Value;
}

/** A constant document (consts.ts) as stored on its node: its value, what evaluating it cost (without the constant documents it read) and those documents. */
export interface ConstEntry {
  readonly value: Value | typeof UNDEFINED;
  readonly steps: number;
  readonly deps: readonly NodeIR[];
  /** computed in a strict evaluation: reused only by evaluations of the same strictness (consts.ts) */
  readonly strict: boolean;
}

export interface NodeIR {
  readonly path: readonly string[];
  readonly children: Map<string, NodeIR>;
  rules: RuleIR[];
  default: RuleIR | undefined;
  /**
   * what the rules at this node define; 'multi' only when every rule is a partial set rule without a ref
   * suffix (a partial set with a suffix makes the node 'object'): see buildNodes in compile/plan.ts
   */
  kind: 'complete' | 'multi' | 'object' | 'function' | undefined;
  arity: number | undefined;
  /** some rule below this node exists (else the node only holds base data) */
  hasRules: boolean;
  /** a rule with a dynamic suffix longer than one term, or a multi rule with suffix, lives here */
  deepDynamic: boolean;
  /** a node elsewhere with the same plan: the scope caches this node's document under that one (alias.ts) */
  alias: NodeIR | undefined;
  /** the scope whose document `doc` is (its DocCache id; 0: none): see DocCache in scope.ts */
  docScope: number;
  /** whether the document is the same in every evaluation (ConstDocs.isConstant's answer, kept here; undefined: not judged yet) */
  constant: boolean | undefined;
  /** the constant document once computed (see ConstDocs.adopt) */
  constDoc: ConstEntry | undefined;
  doc: Value | typeof UNDEFINED | undefined;
}

/*
 * NB: plan objects are built through the functions below, which give every object of a family all of the
 * family's fields in one order (absent ones undefined). The evaluator reads `t.k`, `t.path`, `e.op`, `c.fn`, …
 * on objects of every variant; with one hidden class per family those loads stay monomorphic instead of going
 * through V8's megamorphic lookup (built-in pack evaluation: see docs/benchmarks.md).
 */
type AllOf<U> = {
  readonly [K in U extends unknown ? keyof U : never]?: U extends { readonly [P in K]?: infer V } ? V : never;
};

export function termIR<T extends TermIR>(t: T): T {
  const x = t as AllOf<TermIR>;
  return {
    k: x.k,
    v: x.v,
    s: x.s,
    n: x.n,
    head: x.head,
    path: x.path,
    g: x.g,
    items: x.items,
    key: x.key,
    value: x.value,
    body: x.body,
    pre: undefined,
  } as unknown as T;
}

export function exprIR<T extends ExprIR>(e: T): T {
  const x = e as AllOf<ExprIR>;
  return {
    op: x.op,
    neg: x.neg,
    with: x.with,
    loc: x.loc,
    t: x.t,
    a: x.a,
    b: x.b,
    call: x.call,
    key: x.key,
    value: x.value,
    domain: x.domain,
    body: x.body,
    node: x.node,
    iter: x.iter,
  } as unknown as T;
}

export function callIR(c: Omit<CallIR, 'memo'>): CallIR {
  return { name: c.name, builtin: c.builtin, fn: c.fn, args: c.args, out: c.out, memo: undefined };
}

export function ruleIR(r: RuleIR): RuleIR {
  return {
    kind: r.kind,
    loc: r.loc,
    nslots: r.nslots,
    args: r.args,
    suffix: r.suffix,
    key: r.key,
    value: r.value,
    body: r.body,
    else: r.else,
    ground: r.ground,
    text: r.text,
    annotations: r.annotations,
    chain: r.chain,
  };
}
