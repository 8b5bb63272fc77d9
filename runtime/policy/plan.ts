/**
 * The compiled policies of one scope: one PolicySet per strictness group (strict builtin errors, the default,
 * and the policies that opted out), evaluated against one input and merged back into priority order.
 * Pure and synchronous, so the same code runs inline and on an isolation worker.
 */
import { createHash } from 'node:crypto';
import { PolicySet, type DecisionLimits, type PolicyDecision, type PolicyModule } from '../../rego/index.js';
import { classify, type PolicyFailure } from './failure.js';

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
    h.update(JSON.stringify([m.name, m.regoVersion ?? 'v1', m.priority ?? 100, m.action ?? 'block', e.strict, m.source]));
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

  constructor(
    readonly key: string,
    entries: readonly PlanEntry[],
    compileSet: SetCompiler,
  ) {
    entries.forEach((e, i) => this.order.set(e.module.name, i));
    this.byPriority = entries.map((e) => ({ name: e.module.name, priority: e.module.priority ?? 100 })).sort((a, b) => b.priority - a.priority);
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
   * Evaluates every group. The deadline bounds the whole scope (the second group gets what the first left);
   * each group has its own step budget.
   */
  evaluate(input: unknown, limits: Required<DecisionLimits>): PlanResult {
    const t0 = performance.now();
    if (this.groups.length === 1) return { decisions: run(this.groups[0]!, input, limits), durationMs: performance.now() - t0 };
    const decisions: PlanDecision[] = [];
    for (const g of this.groups) {
      const left = Math.max(1, limits.deadlineMs - (performance.now() - t0));
      decisions.push(...run(g, input, { deadlineMs: left, maxSteps: limits.maxSteps }));
    }
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
