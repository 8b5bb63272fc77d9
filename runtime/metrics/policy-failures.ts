import type { CounterFamily } from './prometheus.js';

export const POLICY_FAILURES_METRIC = 'steward_policy_evaluation_failures_total';

/**
 * `steward_policy_evaluation_failures_total{policy, class}`: failed evaluations since start, per policy and
 * failure class. Bounded: policies are the loaded ones (the engine forgets removed policies), classes a fixed list.
 */
export function policyFailureFamily(counts: readonly { policy: string; class: string; value: number }[]): CounterFamily {
  return {
    type: 'counter',
    name: POLICY_FAILURES_METRIC,
    help: 'Policy evaluations that failed (and so blocked), by policy and failure class.',
    samples: counts.map((c) => ({ labels: { policy: c.policy, class: c.class }, value: c.value })),
  };
}
