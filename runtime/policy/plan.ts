/**
 * The compiled policies of one scope, evaluated against one input and merged back into priority order. Rego policies
 * compile into one PolicySet per group of equal strictness (strict builtin errors, the default, and the policies that
 * opted out) and equal limits (the engine's default, or a Policy's own `spec.limits`); each wasm policy is a group of
 * its own. Pure and synchronous, so the same code runs inline and on an isolation worker.
 */
import { createHash } from 'node:crypto';
import {
  PolicySet,
  PolicySetCache,
  type DecisionLimits,
  type PolicyDecision,
  type PolicyModule,
} from '../../rego/index.js';
import type { WasmPolicy } from '../../rego/wasm/index.js';
import { classify, type PolicyFailure } from './failure.js';
import { withNormalized, withoutNormalized } from './normalized-input.js';
import type { PolicyInput } from './types.js';
import { WasmCache, type WasmModule } from './wasm.js';

/** A Policy's own limits (`spec.limits`), each over the engine's default. */
export interface EntryLimits {
  deadlineMs?: number;
  maxSteps?: number;
}

/** A Rego policy of a scope, as compiled: its module and whether builtin errors are strict. */
export interface RegoEntry {
  module: PolicyModule;
  strict: boolean;
  limits?: EntryLimits;
}

/** A wasm policy of a scope: its loaded bundle's bytes and the package that decides. */
export interface WasmEntry {
  wasm: WasmModule;
  limits?: EntryLimits;
}

export type PlanEntry = RegoEntry | WasmEntry;

export const isWasmEntry = (e: PlanEntry): e is WasmEntry => 'wasm' in e;
const nameOf = (e: PlanEntry) => (isWasmEntry(e) ? e.wasm.name : e.module.name);
const priorityOf = (e: PlanEntry) => (isWasmEntry(e) ? e.wasm.priority : (e.module.priority ?? 100));

/** A decision of the plan: a PolicySet decision, plus the class of its failure when it failed. */
export interface PlanDecision extends PolicyDecision {
  failure?: PolicyFailure;
}

export interface PlanResult {
  /** In priority order (higher first; declaration order for equal priorities). */
  decisions: PlanDecision[];
  durationMs: number;
}

/** Compiles (or finds) what the plans of a thread need: Rego sets by content, wasm bundles by hash. */
export interface PlanCompilers {
  set(modules: readonly PolicyModule[]): PolicySet;
  wasm(module: WasmModule): WasmPolicy;
}

/** The caches of one thread (the engine's, or an isolation worker's). */
export function planCompilers(): PlanCompilers {
  const sets = new PolicySetCache(256);
  const bundles = new WasmCache();
  return { set: (modules) => sets.get(modules), wasm: (m) => bundles.get(m.sha256, m.bytes).policy };
}

/** Content key of a scope's entries: equal keys mean equal plans (used to share plans with the workers). */
export function planKey(entries: readonly PlanEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries) {
    const limits = [e.limits?.deadlineMs ?? null, e.limits?.maxSteps ?? null];
    if (isWasmEntry(e)) {
      const w = e.wasm;
      h.update(JSON.stringify(['wasm', w.name, w.package, w.priority, w.action, w.sha256, ...limits]));
      continue;
    }
    const m = e.module;
    h.update(
      JSON.stringify([m.name, m.regoVersion ?? 'v1', m.priority ?? 100, m.action ?? 'block', e.strict, ...limits]),
    );
    h.update(m.source);
  }
  return h.digest('hex');
}

type Group =
  | { set: PolicySet; strict: boolean; limits?: EntryLimits }
  | { wasm: WasmModule; policy: WasmPolicy; limits?: EntryLimits };

export class ScopePlan {
  /** Policy names in declaration order (the tie-break of equal priorities across groups). */
  private readonly order = new Map<string, number>();
  private readonly byPriority: { name: string; priority: number }[];
  /** Groups that share the default deadline first, then those with a deadline of their own. */
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
    compilers: PlanCompilers,
  ) {
    entries.forEach((e, i) => this.order.set(nameOf(e), i));
    this.readsNormalized = entries.some((e) =>
      isWasmEntry(e) ? e.wasm.readsNormalized : e.module.source.includes('normalized'),
    );
    this.byPriority = entries
      .map((e) => ({ name: nameOf(e), priority: priorityOf(e) }))
      .sort((a, b) => b.priority - a.priority);
    const rego = new Map<string, { strict: boolean; limits?: EntryLimits; modules: PolicyModule[] }>();
    for (const e of entries) {
      if (isWasmEntry(e)) {
        this.groups.push({ wasm: e.wasm, policy: compilers.wasm(e.wasm), limits: e.limits });
        continue;
      }
      const key = JSON.stringify([!e.strict, e.limits?.deadlineMs ?? 0, e.limits?.maxSteps ?? 0]);
      const group = rego.get(key) ?? { strict: e.strict, limits: e.limits, modules: [] };
      group.modules.push(e.module);
      rego.set(key, group);
    }
    // NB: the strict default group first, as before per-policy limits: the common plan is one PolicySet.
    const sets = [...rego].sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => g);
    this.groups.unshift(...sets.map((g) => ({ set: compilers.set(g.modules), strict: g.strict, limits: g.limits })));
    this.groups.sort((a, b) => Number(a.limits?.deadlineMs !== undefined) - Number(b.limits?.deadlineMs !== undefined));
  }

  /** Module names and priorities of the scope, in priority order (stable). */
  modules(): readonly { name: string; priority: number }[] {
    return this.byPriority;
  }

  /**
   * The longest an evaluation may take with these defaults: the default deadline, shared by the groups without one
   * of their own, plus each own deadline (what an isolation worker is given before it is replaced).
   */
  budgetMs(limits: Required<DecisionLimits>): number {
    return this.groups.reduce((sum, g) => sum + (g.limits?.deadlineMs ?? 0), limits.deadlineMs);
  }

  /**
   * Evaluates every group, with the input's normalized copies when a policy of the scope reads them. The default
   * deadline bounds the groups without a deadline of their own, the copies included (each gets what the previous
   * left); a group with its own deadline has all of it. Each group has its own step budget.
   * NB: the one place `input.normalized` is made (docs/adr/0009-normalized-policy-input.md): every surface comes
   * through here, inline and on an isolation worker (which so takes the cost of a large input's copies).
   */
  evaluate(raw: PolicyInput, limits: Required<DecisionLimits>): PlanResult {
    const t0 = performance.now();
    const input = this.readsNormalized ? withNormalized(raw) : withoutNormalized(raw);
    const limitsOf = (g: Group) => ({
      deadlineMs: g.limits?.deadlineMs ?? Math.max(1, limits.deadlineMs - (performance.now() - t0)),
      maxSteps: g.limits?.maxSteps ?? limits.maxSteps,
    });
    if (this.groups.length === 1)
      return { decisions: run(this.groups[0]!, input, limitsOf(this.groups[0]!)), durationMs: performance.now() - t0 };
    const decisions: PlanDecision[] = [];
    for (const g of this.groups) decisions.push(...run(g, input, limitsOf(g)));
    decisions.sort((a, b) => b.priority - a.priority || this.order.get(a.name)! - this.order.get(b.name)!);
    return { decisions, durationMs: performance.now() - t0 };
  }
}

function run(g: Group, input: unknown, limits: Required<DecisionLimits>): PlanDecision[] {
  let decisions: PlanDecision[];
  if ('wasm' in g) {
    // NB: wasm evaluation has no step count and cannot be interrupted: the deadline is checked after each entrypoint.
    const d = g.policy.decide(g.wasm.package, input, { deadlineMs: limits.deadlineMs });
    decisions = [{ ...d, name: g.wasm.name, action: g.wasm.action, priority: g.wasm.priority }];
  } else {
    decisions = g.set.evaluate(input, limits, { strict: g.strict }).decisions;
  }
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
