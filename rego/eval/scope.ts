/**
 * Evaluation state. `Shared` lives for one evaluation (limits, builtin context, print output);
 * `Scope` is what `with` changes (input, patched data, mocked functions) and owns the caches that
 * are only valid for it.
 */
import type { Builtin, BuiltinContext } from '../builtins/registry.js';
import { RegoLimitError } from '../errors.js';
import type { Value } from '../value.js';
import type { NodeIR } from './ir.js';

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
  readonly cache: Map<NodeIR, Value | typeof UNDEFINED>;
  readonly fnCache: Map<NodeIR, Map<string, Value | typeof UNDEFINED>>;
  readonly inProgress: Set<NodeIR>;
}

export const UNDEFINED: unique symbol = Symbol('undefined');

export function newScope(input: Value | undefined, data: Value): Scope {
  return {
    input,
    data,
    overridden: undefined,
    fnPatches: undefined,
    cache: new Map(),
    fnCache: new Map(),
    inProgress: new Set(),
  };
}

export interface Limits {
  /** wall-clock budget; checked every 256 steps and in builtins' long loops */
  deadlineMs?: number;
  /** maximum number of expression evaluations */
  maxSteps?: number;
}

/**
 * Per-evaluation state, also serving as the builtins' context (methods on the prototype, so an
 * evaluation allocates no closures for it).
 */
export class Shared implements BuiltinContext {
  steps = 0;
  private readonly deadlineAt: number;
  private readonly maxSteps: number;
  private readonly deadlineMs: number;
  private memo: Map<string, unknown> | undefined;
  private now: bigint | undefined;
  readonly prints: string[] = [];

  constructor(
    limits: Limits,
    readonly strict: boolean,
    /** fixed time for this evaluation; when absent, read once on first use */
    nowNs: bigint | undefined,
    private readonly printHook?: (msg: string) => void,
    readonly runtime?: Value,
  ) {
    this.now = nowNs;
    this.deadlineAt = limits.deadlineMs !== undefined ? performance.now() + limits.deadlineMs : Infinity;
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
    this.prints.push(message);
    this.printHook?.(message);
  }

  /** One evaluation step; throws RegoLimitError when a budget is exhausted. */
  step(): void {
    const n = ++this.steps;
    if (n > this.maxSteps) throw new RegoLimitError('steps', this.maxSteps);
    if ((n & 255) === 0 && this.deadlineAt !== Infinity && performance.now() > this.deadlineAt) {
      throw new RegoLimitError('deadline', this.deadlineMs);
    }
  }
}
