/**
 * The compiled policies of one scope: one PolicySet per strictness group (strict builtin errors, the default,
 * and the policies that opted out), evaluated against one input and merged back into priority order.
 * Pure and synchronous, so the same code runs inline and on an isolation worker.
 */
import { createHash } from 'node:crypto';
import { PolicySet, type DecisionLimits, type PolicyDecision, type PolicyModule } from '../../rego/index.js';
import { classify, type PolicyFailure } from './failure.js';
import { withNormalized, withoutNormalized } from './normalized-input.js';
import type { PolicyInput } from './types.js';

/** One policy of a scope, as compiled: its module and whether builtin errors are strict. */
export interface PlanEntry {
  module: PolicyModule;
  strict: boolean;
}

/** A decision of the plan: a PolicySet decision, plus the class of its failure when it failed. */
export interface PlanDecision extends PolicyDecision {
  failure?: PolicyFailure;
}

export interface PlanResult {
  /** In priority order (higher first; declaration order for equal priorities). */
  decisions: PlanDecision[];
  durationMs: number;
}

/** Compiles (or finds) the set of these modules; the plan adds strictness on top. */
export type SetCompiler = (modules: readonly PolicyModule[]) => PolicySet;

/** Content key of a scope's entries: equal keys mean equal plans (used to share plans with the workers). */
export function planKey(entries: readonly PlanEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries) {
    const m = e.module;
    h.update(
      JSON.stringify([m.name, m.regoVersion ?? 'v1', m.priority ?? 100, m.action ?? 'block', e.strict, m.source]),
    );
  }
  return h.digest('hex');
}

interface Group {
  set: PolicySet;
  strict: boolean;
}

export class ScopePlan {
  /** Names of the modules, in declaration order (the tie-break of equal priorities across groups). */
  private readonly order = new Map<string, number>();
  private readonly byPriority: { name: string; priority: number }[];
  private readonly groups: Group[] = [];
  /**
   * Whether some policy of the scope reads `input.normalized` (the engine computes it only then). NB: a textual
   * test of the sources, a superset of the references (`input.normalized.texts`, `input["normalized"]`): a policy
   * that builds the key from pieces is not seen, and reads no normalized copies.
   */
  readonly readsNormalized: boolean;

  constructor(
    readonly key: string,
    entries: readonly PlanEntry[],
    compileSet: SetCompiler,
  ) {
    entries.forEach((e, i) => this.order.set(e.module.name, i));
    this.readsNormalized = entries.some((e) => e.module.source.includes('normalized'));
    this.byPriority = entries
      .map((e) => ({ name: e.module.name, priority: e.module.priority ?? 100 }))
      .sort((a, b) => b.priority - a.priority);
    for (const strict of [true, false]) {
      const modules = entries.filter((e) => e.strict === strict).map((e) => e.module);
      if (modules.length) this.groups.push({ set: compileSet(modules), strict });
    }
  }

  /** Module names and priorities of the scope, in priority order (stable). */
  modules(): readonly { name: string; priority: number }[] {
    return this.byPriority;
  }

  /**
   * Evaluates every group, with the input's normalized copies when a policy of the scope reads them. The deadline
   * bounds the whole scope, the copies included (the second group gets what the first left); each group has its
   * own step budget.
   * NB: the one place `input.normalized` is made (docs/adr/0009-normalized-policy-input.md): every surface comes
   * through here, inline and on an isolation worker (which so takes the cost of a large input's copies).
   */
  evaluate(raw: PolicyInput, limits: Required<DecisionLimits>): PlanResult {
    const t0 = performance.now();
    const input = this.readsNormalized ? withNormalized(raw) : withoutNormalized(raw);
    const left = () => ({
      deadlineMs: Math.max(1, limits.deadlineMs - (performance.now() - t0)),
      maxSteps: limits.maxSteps,
    });
    if (this.groups.length === 1)
      return { decisions: run(this.groups[0]!, input, left()), durationMs: performance.now() - t0 };
    const decisions: PlanDecision[] = [];
    for (const g of this.groups) decisions.push(...run(g, input, left()));
    decisions.sort((a, b) => b.priority - a.priority || this.order.get(a.name)! - this.order.get(b.name)!);
    return { decisions, durationMs: performance.now() - t0 };
  }
}

function run(g: Group, input: unknown, limits: Required<DecisionLimits>): PlanDecision[] {
  const decisions: PlanDecision[] = g.set.evaluate(input, limits, { strict: g.strict }).decisions;
  for (const d of decisions) if (d.error) d.failure = { class: classify(d.error), message: d.error.message };
  return decisions;
}

/** Every policy of the plan failed with one class (an exception out of the engine, a worker that timed out). */
export function failedPlan(plan: ScopePlan, failure: PolicyFailure, durationMs: number): PlanResult {
  return {
    decisions: plan.modules().map(({ name, priority }) => ({
      package: '',
      blocked: true,
      deny: [],
      warn: [],
      allow: undefined,
      durationMs,
      name,
      action: 'block',
      priority,
      failure,
    })),
    durationMs,
  };
}
