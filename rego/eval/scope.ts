/**
 * Evaluation state. `Shared` lives for one evaluation (limits, builtin context, print output);
 * `Scope` is what `with` changes (input, patched data, mocked functions) and owns the caches that
 * are only valid for it.
 */
import type { Builtin, BuiltinContext } from '../builtins/registry.js';
import { RegoLimitError } from '../errors.js';
import type { Value } from '../value.js';
import type { NodeIR } from './ir.js';
import type { ArgMemo } from './memo.js';

export interface FnPatch {
  /** replacement function, or undefined when the replacement is a plain value */
  readonly builtin?: Builtin;
  readonly fn?: NodeIR;
  readonly name: string;
  readonly value?: Value;
}

export interface Scope {
  readonly input: Value | undefined;
  readonly data: Value;
  /** nodes whose rules are replaced by (patched) base data */
  readonly overridden: ReadonlySet<NodeIR> | undefined;
  readonly fnPatches: ReadonlyMap<string, FnPatch> | undefined;
  readonly cache: DocCache;
  /** memos of functions and keyed lookups, created on first use (most evaluations call no function) */
  fnCache: Map<NodeIR, ArgMemo> | undefined;
  /**
   * documents being computed, innermost last. NB: an array, not a Set: docOf pushes and pops in
   * LIFO order, the stack is short, and a Set's add/delete reallocate its table.
   */
  readonly inProgress: NodeIR[];
}

export const UNDEFINED: unique symbol = Symbol('undefined');

/** evalDirect's answer for expressions that need the general (continuation) path (direct.ts). */
export const NOT_DIRECT: unique symbol = Symbol('not direct');

let lastCacheId = 0;

/**
 * A scope's computed documents, kept on the rule nodes themselves: a node holds the document of the cache
 * that stored it last (by id), so a lookup is two field reads and a scope allocates no map.
 * NB: a nested scope (`with`) that computes a node replaces the outer scope's entry; the outer scope then
 * computes that document again (a miss, never a wrong value). A node keeps its last document until the next
 * evaluation of its plan replaces it.
 */
export class DocCache {
  private readonly id = ++lastCacheId;

  get(node: NodeIR): Value | typeof UNDEFINED | undefined {
    return node.docScope === this.id ? node.doc : undefined;
  }

  has(node: NodeIR): boolean {
    return node.docScope === this.id;
  }

  set(node: NodeIR, value: Value | typeof UNDEFINED): void {
    node.docScope = this.id;
    node.doc = value;
  }
}

export function newScope(input: Value | undefined, data: Value): Scope {
  return {
    input,
    data,
    overridden: undefined,
    fnPatches: undefined,
    cache: new DocCache(),
    fnCache: undefined,
    inProgress: [],
  };
}

export interface Limits {
  /** wall-clock budget; checked every few steps (see Shared.clockCheck) and in builtins' long loops */
  deadlineMs?: number;
  /** maximum number of expression evaluations */
  maxSteps?: number;
}

/**
 * Per-evaluation state, also serving as the builtins' context (methods on the prototype, so an
 * evaluation allocates no closures for it).
 */
/** Aimed-for time between two clock reads in step(), ms: bounds how far a step loop overshoots. */
const CHECK_EVERY_MS = 0.25;
const MAX_CHECK_INTERVAL = 1024;
/** A charge at least this large reads the clock at once (and callBuiltin reads it again after the call). */
export const LARGE_CHARGE = 1024;

export class Shared implements BuiltinContext {
  steps = 0;
  /** step count at which step() next reads the clock */
  private nextCheck: number;
  private checkInterval = 16;
  private lastCheck: number;
  private readonly deadlineAt: number;
  private readonly maxSteps: number;
  private readonly deadlineMs: number;
  private memo: Map<string, unknown> | undefined;
  private now: bigint | undefined;

  constructor(
    limits: Limits,
    readonly strict: boolean,
    /** fixed time for this evaluation; when absent, read once on first use */
    nowNs: bigint | undefined,
    private readonly printHook?: (msg: string) => void,
    readonly runtime?: Value,
  ) {
    this.now = nowNs;
    this.lastCheck = limits.deadlineMs !== undefined ? performance.now() : 0;
    this.deadlineAt = limits.deadlineMs !== undefined ? this.lastCheck + limits.deadlineMs : Infinity;
    this.nextCheck = limits.deadlineMs !== undefined ? this.checkInterval : Infinity;
    this.maxSteps = limits.maxSteps ?? Infinity;
    this.deadlineMs = limits.deadlineMs ?? 0;
  }

  get bctx(): BuiltinContext {
    return this;
  }

  get cache(): Map<string, unknown> {
    return (this.memo ??= new Map());
  }

  nowNs(): bigint {
    return (this.now ??= BigInt(Date.now()) * 1_000_000n);
  }

  checkDeadline(): void {
    if (performance.now() > this.deadlineAt) throw new RegoLimitError('deadline', this.deadlineMs);
  }

  print(message: string): void {
    this.printHook?.(message);
  }

  /**
   * Steps of work charged in bulk: done earlier on this evaluation's behalf (constant documents it
   * reuses), or about to be done by a builtin. The clock is read at once when the charge is large
   * (the work it stands for may take a while), else on step()'s schedule.
   */
  charge(steps: number): void {
    const n = (this.steps += steps);
    if (n > this.maxSteps) throw new RegoLimitError('steps', this.maxSteps);
    if (n >= this.nextCheck || (steps >= LARGE_CHARGE && this.deadlineAt !== Infinity)) this.clockCheck(n);
  }

  /**
   * The last deadline check, when an evaluation has its result. NB: a single long builtin call (or a
   * GC pause) can end past the deadline with no check seeing it; that result must not be reported.
   */
  checkFinished(): void {
    if (this.deadlineAt !== Infinity) this.checkDeadline();
  }

  /** One evaluation step; throws RegoLimitError when a budget is exhausted. */
  step(): void {
    const n = ++this.steps;
    if (n > this.maxSteps) throw new RegoLimitError('steps', this.maxSteps);
    if (n >= this.nextCheck) this.clockCheck(n);
  }

  /**
   * The deadline check of step(). The clock is read every `checkInterval` steps, an interval adapted
   * so that reads are about CHECK_EVERY_MS apart: cheap steps (the usual case) read it rarely, and
   * expensive ones (a builtin over a large text per step) are checked at nearly every step, so a
   * loop stops within a fraction of a millisecond of its deadline (GC pauses aside).
   */
  private clockCheck(n: number): void {
    const now = performance.now();
    if (now > this.deadlineAt) throw new RegoLimitError('deadline', this.deadlineMs);
    const dt = now - this.lastCheck;
    this.lastCheck = now;
    const grown = this.checkInterval * 2;
    const aimed = dt > 0 ? Math.floor((this.checkInterval * CHECK_EVERY_MS) / dt) : grown;
    this.checkInterval = Math.max(1, Math.min(aimed, grown, MAX_CHECK_INTERVAL));
    this.nextCheck = n + this.checkInterval;
  }
}
