/**
 * `steward operator`'s environment: parsed once (STYLE.md habit 5) into the typed settings `startOperator` takes
 * (operator/settings.ts). The Helm chart sets it on the operator's Deployment; units are in the names.
 */
import { z } from 'zod';
import { bool, logSettings, parseConfig, port } from '../../platform/config.js';
import type { OperatorSettings } from '../../operator/settings.js';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

export const operatorConfigSchema = z
  .object({
    ...logSettings,
    /** Kubeconfig file; absent: the in-cluster service account. */
    STEWARD_KUBECONFIG: z.string().min(1).optional(),
    /** The folder a pod's mount paths are found under (set by the test cluster's kubelet); absent: '/'. */
    STEWARD_POD_ROOT: z.string().min(1).optional(),
    /** Watch and manage only this namespace; absent: every namespace. */
    STEWARD_WATCH_NAMESPACE: z.string().min(1).optional(),
    /** The operator pod's namespace (downward API): where its Lease lives. @default default */
    STEWARD_NAMESPACE: z.string().min(1).default('default'),
    /** The operator pod's name (downward API): its identity in the Lease and in Events. @default hostname-pid */
    STEWARD_POD_NAME: z.string().min(1).optional(),
    /** Run controllers only on the replica holding the Lease. Off: a single replica, always active. @default true */
    STEWARD_LEADER_ELECTION: bool.default(true),
    /** @default steward-operator */
    STEWARD_LEASE_NAME: z.string().min(1).default('steward-operator'),
    /** How long the Lease stays valid after its last renewal. @default 15s */
    STEWARD_LEASE_DURATION_MS: ms(1000, 600_000, 15_000),
    /** A leader that could not renew for this long stops leading. @default 10s */
    STEWARD_LEASE_RENEW_DEADLINE_MS: ms(500, 600_000, 10_000),
    /** Interval of renewals and of the standbys' attempts. @default 2s */
    STEWARD_LEASE_RETRY_PERIOD_MS: ms(100, 600_000, 2_000),
    /**
     * Sustained Kubernetes API requests per second. A new AgentConfig costs about five writes (Deployment,
     * Service, an Event, two status patches), so 500 applied at once need ~12 s of requests at the default; the
     * API server's priority and fairness guard it beyond that (a 429 is waited out). @default 200
     */
    STEWARD_KUBE_QPS: z.coerce.number().positive().max(10_000).default(200),
    /** API requests allowed at once above the sustained rate. @default 400 */
    STEWARD_KUBE_BURST: z.coerce.number().int().min(1).max(10_000).default(400),
    /** Reconciles at once per controller. @default 4 */
    STEWARD_OPERATOR_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** GET /healthz (the process serves), GET /readyz (informers synced, not draining) and GET /metrics (Prometheus). @default 8082 */
    STEWARD_PROBE_PORT: port.default(8082),
    /** @default 0.0.0.0 */
    STEWARD_PROBE_HOST: z.string().min(1).default('0.0.0.0'),
    /** Time allowed on SIGTERM for reconciles in flight to finish before the process exits anyway. @default 10s */
    STEWARD_SHUTDOWN_TIMEOUT_MS: ms(100, 120_000, 10_000),
    /** Verifies License keys; copied into each Orchestrator's `O-internal` Secret. Absent: Licenses cannot be verified. */
    STEWARD_LICENSE_SIGNING_SECRET: z.string().min(16, 'use at least 16 characters').optional(),
    /** The image of the runtime pods; an Orchestrator's `spec.image` overrides it. @default ghcr.io/steward-dev/steward:latest */
    STEWARD_DEFAULT_IMAGE: z.string().min(1).default('ghcr.io/steward-dev/steward:latest'),
  })
  .superRefine((c, ctx) => {
    // NB: the order is what makes leader election safe: a leader gives up before its Lease can expire.
    if (!(
      c.STEWARD_LEASE_RETRY_PERIOD_MS < c.STEWARD_LEASE_RENEW_DEADLINE_MS &&
      c.STEWARD_LEASE_RENEW_DEADLINE_MS < c.STEWARD_LEASE_DURATION_MS
    )) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_LEASE_RENEW_DEADLINE_MS'],
        message: 'needs STEWARD_LEASE_RETRY_PERIOD_MS < STEWARD_LEASE_RENEW_DEADLINE_MS < STEWARD_LEASE_DURATION_MS',
      });
    }
  });

export type OperatorConfig = z.infer<typeof operatorConfigSchema>;

/** The operator's settings from an environment; a ConfigError names every bad variable. */
export function operatorSettings(env: Readonly<Record<string, string | undefined>>): OperatorSettings {
  return operatorFrom(parseConfig(operatorConfigSchema, env));
}

export function operatorFrom(c: OperatorConfig): OperatorSettings {
  return {
    log: { level: c.LOG_LEVEL, format: c.LOG_FORMAT },
    shutdownTimeoutMs: c.STEWARD_SHUTDOWN_TIMEOUT_MS,
    kubeconfig: c.STEWARD_KUBECONFIG,
    podRoot: c.STEWARD_POD_ROOT,
    watchNamespace: c.STEWARD_WATCH_NAMESPACE,
    namespace: c.STEWARD_NAMESPACE,
    podName: c.STEWARD_POD_NAME,
    leaderElection: c.STEWARD_LEADER_ELECTION
      ? {
          leaseName: c.STEWARD_LEASE_NAME,
          leaseDurationMs: c.STEWARD_LEASE_DURATION_MS,
          renewDeadlineMs: c.STEWARD_LEASE_RENEW_DEADLINE_MS,
          retryPeriodMs: c.STEWARD_LEASE_RETRY_PERIOD_MS,
        }
      : undefined,
    kube: { qps: c.STEWARD_KUBE_QPS, burst: c.STEWARD_KUBE_BURST },
    concurrency: c.STEWARD_OPERATOR_CONCURRENCY,
    probes: { host: c.STEWARD_PROBE_HOST, port: c.STEWARD_PROBE_PORT, setting: 'STEWARD_PROBE_PORT' },
    licenseSigningSecret: c.STEWARD_LICENSE_SIGNING_SECRET,
    defaultImage: c.STEWARD_DEFAULT_IMAGE,
  };
}
