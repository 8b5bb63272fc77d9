/**
 * A set of Policy modules compiled into one plan and evaluated in priority order (higher first)
 * against one input, as the gateway's pre-check does. Compiled sets are cached by content.
 */
import { createHash } from 'node:crypto';
import { decisionFrom, decisionRefs, DEFAULT_DECISION_LIMITS, type Decision, type DecisionLimits } from './decision.js';
import { compile, type CompileOptions, type PreparedPolicy } from './engine.js';

export type PolicyAction = 'block' | 'warn' | 'log';

export interface PolicyModule {
  /** the Policy's name (also the module's file name in error messages) */
  name: string;
  source: string;
  /** @default 'v1' */
  regoVersion?: 'v0' | 'v1';
  /** higher first @default 100 */
  priority?: number;
  /** what a deny does: block, downgrade to a warning, or only log @default 'block' */
  action?: PolicyAction;
  /** @default true */
  enabled?: boolean;
}

export interface PolicyDecision extends Decision {
  name: string;
  action: PolicyAction;
  priority: number;
}

export interface PolicySetResult {
  blocked: boolean;
  /** deny messages of blocking policies, in priority order */
  deny: string[];
  /** warn messages, plus deny messages of `warn` policies */
  warn: string[];
  decisions: PolicyDecision[];
  durationMs: number;
}

const NOT_DEFINED = Object.freeze({ value: undefined });

interface Entry {
  name: string;
  pkg: string;
  priority: number;
  action: PolicyAction;
}

export class PolicySet {
  /** decision refs of every package, in priority order */
  private readonly refs: string[] = [];
  /** the refs evaluated: those some rule or base data may define (the others are undefined) */
  private readonly evaluated: string[] = [];
  /** per ref, its index in `evaluated`, or -1 */
  private readonly slot: number[] = [];
  /** per entry, its package's index in `refs` */
  private readonly entryAt: number[] = [];
  /** whether each package defines `allow` (known at compile time) */
  private readonly allowDefined = new Map<string, boolean>();

  private constructor(
    readonly prepared: PreparedPolicy,
    private readonly entries: readonly Entry[],
  ) {
    const pkgIndex = new Map<string, number>();
    for (const e of entries) {
      let at = pkgIndex.get(e.pkg);
      if (at === undefined) {
        at = this.refs.length;
        pkgIndex.set(e.pkg, at);
        const refs = decisionRefs(e.pkg);
        this.refs.push(...refs);
        this.allowDefined.set(e.pkg, prepared.defines(refs[2]));
      }
      this.entryAt.push(at);
    }
    for (const ref of this.refs) {
      this.slot.push(prepared.mayDefine(ref) ? this.evaluated.push(ref) - 1 : -1);
    }
  }

  /** Compiles the enabled modules into one plan. Throws RegoCompileError naming the module. */
  static compile(modules: readonly PolicyModule[], opts: CompileOptions = {}): PolicySet {
    const enabled = modules.filter((m) => m.enabled !== false);
    const prepared = compile(
      enabled.map((m) => ({ name: m.name, source: m.source, regoVersion: m.regoVersion ?? 'v1' })),
      opts,
    );
    const entries = enabled
      .map((m, i) => ({
        name: m.name,
        pkg: packageOf(prepared, m),
        priority: m.priority ?? 100,
        action: m.action ?? 'block',
        order: i,
      }))
      // NB: stable for equal priorities: declaration order decides.
      .sort((a, b) => b.priority - a.priority || a.order - b.order)
      .map(({ order: _order, ...e }) => e);
    return new PolicySet(prepared, entries);
  }

  /**
   * Evaluates every policy in priority order, in one evaluation (shared caches); the limits bound
   * the whole set. A policy whose evaluation fails is blocked (fail closed) without stopping the others.
   * With `strict`, a builtin error fails the policy instead of making its expression undefined.
   */
  evaluate(input: unknown, limits: DecisionLimits = {}, options: { strict?: boolean } = {}): PolicySetResult {
    const t0 = performance.now();
    const decisions: PolicyDecision[] = [];
    const deny: string[] = [];
    const warn: string[] = [];
    let blocked = false;
    // the decision of each package, by its index in `refs` (entries may share a package)
    const byPkg: (Decision | undefined)[] = new Array(this.refs.length);
    let settled: ReturnType<PreparedPolicy['evalRefsSettled']>;
    try {
      const values = this.prepared.evalRefsSettled(this.evaluated, {
        input,
        deadlineMs: limits.deadlineMs ?? DEFAULT_DECISION_LIMITS.deadlineMs,
        maxSteps: limits.maxSteps ?? DEFAULT_DECISION_LIMITS.maxSteps,
        strict: options.strict === true,
      });
      settled = new Array(this.slot.length);
      for (let j = 0; j < this.slot.length; j++) {
        const i = this.slot[j]!;
        settled[j] = i < 0 ? NOT_DEFINED : values[i]!;
      }
    } catch (e) {
      settled = failed(this.refs.length, e);
    }
    const elapsed = performance.now() - t0;
    for (let j = 0; j < this.entries.length; j++) {
      const e = this.entries[j]!;
      const at = this.entryAt[j]!;
      let d = byPkg[at];
      if (d === undefined) {
        d = decisionFrom(this.prepared, e.pkg, settled, elapsed, at, this.allowDefined.get(e.pkg));
        byPkg[at] = d;
      }
      // NB: built field by field: an object spread here cost more than the whole evaluation.
      const pd: PolicyDecision = {
        package: d.package,
        blocked: d.blocked,
        deny: d.deny,
        warn: d.warn,
        allow: d.allow,
        durationMs: d.durationMs,
        name: e.name,
        action: e.action,
        priority: e.priority,
      };
      if (d.error) pd.error = d.error;
      if (d.approval) pd.approval = d.approval;
      decisions.push(pd);
      warn.push(...d.warn);
      if (e.action === 'block') {
        if (d.blocked) blocked = true;
        deny.push(...d.deny);
      } else if (e.action === 'warn') {
        warn.push(...d.deny);
        if (d.error) warn.push(`${e.name}: ${d.error.message}`);
      }
    }
    return { blocked, deny, warn, decisions, durationMs: performance.now() - t0 };
  }
}

/** Every ref failed with the same error. NB: not an inline map: its closure would cost evaluate() a context per call. */
function failed(n: number, error: unknown): { error: unknown }[] {
  return Array.from({ length: n }, () => ({ error }));
}

function packageOf(prepared: PreparedPolicy, m: PolicyModule): string {
  const mod = prepared.plan.modules.find((x) => x.file === m.name);
  return mod ? mod.package.path.join('.') : '';
}

/** Compiled policy sets keyed by content, so unchanged policies are never recompiled. */
export class PolicySetCache {
  private readonly sets = new Map<string, PolicySet>();
  constructor(private readonly maxEntries = 32) {}

  static key(modules: readonly PolicyModule[]): string {
    const h = createHash('sha256');
    for (const m of modules) {
      h.update(
        JSON.stringify([
          m.name,
          m.regoVersion ?? 'v1',
          m.priority ?? 100,
          m.action ?? 'block',
          m.enabled !== false,
          m.source,
        ]),
      );
    }
    return h.digest('hex');
  }

  get(modules: readonly PolicyModule[], opts: CompileOptions = {}): PolicySet {
    const key = PolicySetCache.key(modules);
    const hit = this.sets.get(key);
    if (hit) {
      this.sets.delete(key);
      this.sets.set(key, hit);
      return hit;
    }
    const set = PolicySet.compile(modules, opts);
    if (this.sets.size >= this.maxEntries) this.sets.delete(this.sets.keys().next().value!);
    this.sets.set(key, set);
    return set;
  }
}
