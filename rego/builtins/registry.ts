/**
 * The builtin registry: declarations (name, argument and result types) and implementations, added by
 * each family's `register(r)`. The compiler reads declarations; the evaluator calls implementations.
 */
import type { Type } from '../types.js';
import type { Value } from '../value.js';
import { LINEAR_COST } from './limits.js';

export interface BuiltinDecl {
  /** Dotted name as written in Rego, e.g. `strings.replace_n`. */
  name: string;
  args: readonly Type[];
  result: Type;
  /** Type of any further arguments (e.g. `print`). */
  variadic?: Type;
  /** Results may differ between evaluations (time.now_ns, rand.intn, uuid.rfc4122 …). */
  nondeterministic?: boolean;
  /** Infix operator form, e.g. `+` for plus (used in error messages and the parser's operator table). */
  infix?: string;
  /** Deprecated in OPA v1: the compiler rejects calls in v1 modules. */
  deprecated?: boolean;
  /** Only usable when the compiler enables it (e.g. internal.*). */
  internal?: boolean;
}

/** `undefined` makes the expression undefined. */
export type BuiltinImpl = (args: readonly Value[], ctx: BuiltinContext, site?: CallSite) => Value | undefined;

/**
 * The place in a policy a builtin is called from, when the evaluator knows it: `memo` lets a builtin keep what it
 * derived from an argument that is usually the same there (a compiled pattern), checked against that argument
 * before use. A field read instead of a cache lookup keyed by the argument.
 */
export interface CallSite {
  memo: unknown;
}

export interface BuiltinContext {
  /** Strict builtin errors: errors abort evaluation instead of making the expression undefined. */
  readonly strict: boolean;
  /** time.now_ns — fixed for one evaluation. */
  nowNs(): bigint;
  /** Per-evaluation memo (rand.intn, uuid.rfc4122 …). Prefix keys with the builtin name. */
  readonly cache: Map<string, unknown>;
  /** Call inside long loops; throws RegoLimitError when the deadline or step budget is exhausted. */
  checkDeadline(): void;
  /**
   * Charges `units` steps of work to the evaluation's step budget, before doing the work (see
   * builtins/limits.ts for what a unit is); throws RegoLimitError when the step budget is exhausted,
   * and checks the deadline when the charge is large.
   */
  charge(units: number): void;
  /** Messages from `print` go here (the evaluator's print hook). */
  print?(message: string): void;
  /** What opa.runtime() returns (version, config …); `{}` when the host provides nothing. */
  readonly runtime?: Value;
}

export interface Builtin {
  readonly decl: BuiltinDecl;
  readonly impl: BuiltinImpl;
  /** Work grows with the arguments' size: the evaluator charges arguments and result (limits.ts). */
  readonly linear?: boolean;
}

/** Builtins the engine deliberately leaves out (http.send …): the compiler rejects them by name. */
export interface Unsupported {
  readonly name: string;
  readonly reason: string;
  /** OPA's arity, so that policies which mock the builtin with `with` still compile */
  readonly arity: number;
}

export class BuiltinRegistry {
  private readonly byName = new Map<string, Builtin>();
  private readonly unsupported = new Map<string, Unsupported>();

  add(decl: BuiltinDecl, impl: BuiltinImpl): void {
    if (this.byName.has(decl.name)) throw new Error(`builtin ${decl.name} registered twice`);
    this.byName.set(decl.name, { decl, impl, linear: LINEAR_COST.has(decl.name) });
  }

  /** Declares a builtin Steward does not support, so calls fail to compile with a clear message. */
  addUnsupported(name: string, reason: string, arity = 1): void {
    this.unsupported.set(name, { name, reason, arity });
  }

  get(name: string): Builtin | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  getUnsupported(name: string): Unsupported | undefined {
    return this.unsupported.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  unsupportedNames(): string[] {
    return [...this.unsupported.keys()].sort();
  }

  /** A copy that callers may extend (e.g. tests or embedders adding custom builtins). */
  clone(): BuiltinRegistry {
    const r = new BuiltinRegistry();
    for (const b of this.byName.values()) r.byName.set(b.decl.name, b);
    for (const u of this.unsupported.values()) r.unsupported.set(u.name, u);
    return r;
  }
}
