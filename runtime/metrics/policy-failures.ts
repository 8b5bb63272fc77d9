/**
 * `steward_policy_evaluation_failures_total{policy, class}`: failed evaluations since start, per policy and
 * failure class (registered in telemetry.ts). Bounded: policies are the loaded ones (the engine forgets removed
 * policies), classes a fixed list.
 */
export const POLICY_FAILURES_METRIC = 'steward_policy_evaluation_failures_total';
