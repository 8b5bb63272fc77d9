/**
 * `steward operator`'s settings: typed, camelCase, units in the names. `cmd/config/operator-env.ts` parses them
 * from the environment (the Helm chart sets it on the operator's Deployment) and hands them to `startOperator`.
 */
export interface OperatorSettings {
  log: { level: string; format?: 'json' | 'pretty' };
  shutdownTimeoutMs: number;
  /** Absent: the in-cluster service account. */
  kubeconfig?: string;
  /** The folder a pod's mount paths are under (the test cluster's kubelet); absent: '/'. */
  podRoot?: string;
  /** Watch and manage only this namespace; absent: every namespace. */
  watchNamespace?: string;
  /** The operator pod's namespace: where its Lease lives. */
  namespace: string;
  /** The operator pod's name: its identity in the Lease and in Events. @default hostname-pid */
  podName?: string;
  /** Absent: a single replica, always active. */
  leaderElection?: {
    leaseName: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  kube: { qps: number; burst: number };
  /** Reconciles at once per controller. */
  concurrency: number;
  probes: { host: string; port: number; setting: string };
  licenseSigningSecret?: string;
  /** The runtime pods' image; an Orchestrator's `spec.image` overrides it. */
  defaultImage: string;
}
