/**
 * `steward operator`: the manager, its controllers, leader election and the probe server, wired from parsed
 * settings. `startOperator` builds and starts it in-process (tests); `runOperator` adds the process concerns:
 * SIGTERM drain and, when the Lease is lost, exit (Kubernetes restarts the pod, which campaigns again).
 */
import { hostname } from 'node:os';
import { parseConfig } from '../platform/config.js';
import { KubeClient } from '../platform/kube/client.js';
import { createLogger, logFormat, type Logger } from '../platform/log.js';
import { installShutdown } from '../platform/shutdown.js';
import { listenFailure } from '../platform/startup-error.js';
import { VERSION } from '../platform/version.js';
import { operatorConfigSchema, type OperatorConfig } from './config.js';
import { allControllers } from './controllers/index.js';
import { Manager } from './manager/manager.js';
import type { ControllerContext, ControllerSpec } from './manager/types.js';
import { OperatorMetrics } from './metrics/index.js';
import { startProbeServer } from './probes.js';

/** Builds the controllers from the manager's context; `allControllers` unless a test passes its own. */
export type ControllerFactory = (ctx: ControllerContext) => ControllerSpec[];

export interface OperatorOptions {
  log?: Logger;
  controllers?: ControllerFactory;
  /** Kubeconfig text instead of STEWARD_KUBECONFIG (tests). */
  kubeconfigYaml?: string;
  /** Called when the Lease is lost (after the workers stopped). @default nothing: the operator stays a standby */
  onLostLeadership?: () => void;
  /** First back-off of failed reconciles (tests shorten it). @default 5 ms */
  backoffBaseDelayMs?: number;
}

export interface RunningOperator {
  manager: Manager;
  /** The probe server's URL (`/healthz`, `/readyz`, `/metrics`). */
  probeUrl: string;
  metrics: OperatorMetrics;
  /** This replica's identity in the Lease. */
  identity: string;
  /**
   * Drains: `/readyz` fails, workers finish their reconciles, the Lease is released (unless `releaseLease:
   * false`, which leaves it to expire as a crash would), informers stop, the probe server closes. Idempotent.
   */
  stop(opts?: { releaseLease?: boolean }): Promise<void>;
}

/** This replica's name in the Lease and in Events: the pod name, or hostname-pid outside a pod. */
export function operatorIdentity(config: Pick<OperatorConfig, 'STEWARD_POD_NAME'>): string {
  return config.STEWARD_POD_NAME ?? `${hostname()}-${process.pid}`;
}

export async function startOperator(config: OperatorConfig, opts: OperatorOptions = {}): Promise<RunningOperator> {
  const log = opts.log ?? createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const identity = operatorIdentity(config);
  const metrics = new OperatorMetrics({ version: VERSION });
  const client = await KubeClient.connect({
    kubeconfigYaml: opts.kubeconfigYaml,
    kubeconfigFile: opts.kubeconfigYaml === undefined ? config.STEWARD_KUBECONFIG : undefined,
    podRoot: config.STEWARD_POD_ROOT,
    qps: config.STEWARD_KUBE_QPS,
    burst: config.STEWARD_KUBE_BURST,
    userAgent: `steward-operator/${VERSION}`,
    observer: metrics.kubeRequests,
  });
  const manager = new Manager({
    client,
    log: log.child({ component: 'operator' }),
    namespace: config.STEWARD_WATCH_NAMESPACE,
    concurrency: config.STEWARD_OPERATOR_CONCURRENCY,
    backoff: opts.backoffBaseDelayMs === undefined ? undefined : { baseDelayMs: opts.backoffBaseDelayMs },
    onLostLeadership: opts.onLostLeadership,
    metrics,
    leaderElection: config.STEWARD_LEADER_ELECTION
      ? {
          namespace: config.STEWARD_NAMESPACE,
          name: config.STEWARD_LEASE_NAME,
          identity,
          leaseDurationMs: config.STEWARD_LEASE_DURATION_MS,
          renewDeadlineMs: config.STEWARD_LEASE_RENEW_DEADLINE_MS,
          retryPeriodMs: config.STEWARD_LEASE_RETRY_PERIOD_MS,
        }
      : undefined,
  });
  const ctx = manager.context({
    licenseSigningSecret: config.STEWARD_LICENSE_SIGNING_SECRET,
    defaultImage: config.STEWARD_DEFAULT_IMAGE,
    watchNamespace: config.STEWARD_WATCH_NAMESPACE,
  });
  for (const spec of (opts.controllers ?? ((c: ControllerContext) => allControllers(c)))(ctx)) manager.add(spec);
  metrics.watch(manager);

  let draining = false;
  const probes = await startProbeServer({
    host: config.STEWARD_PROBE_HOST,
    port: config.STEWARD_PROBE_PORT,
    ready: () => !draining && manager.ready,
    metrics: () => metrics.scrape(),
  }).catch(async (err: unknown) => {
    await client.close();
    throw listenFailure(err, 'STEWARD_PROBE_PORT', config.STEWARD_PROBE_HOST, config.STEWARD_PROBE_PORT);
  });
  // NB: not awaited: the probe server answers (readyz 503) while the first lists are still coming in.
  const started = manager.start().catch((err: unknown) => log.error({ err }, 'manager failed to start'));
  log.info(
    {
      version: VERSION,
      identity,
      probes: probes.url,
      leaderElection: config.STEWARD_LEADER_ELECTION,
      namespace: config.STEWARD_WATCH_NAMESPACE ?? '(all)',
    },
    'steward operator started',
  );

  let stopping: Promise<void> | undefined;
  const stop = async (stopOpts: { releaseLease?: boolean } = {}) => {
    draining = true;
    await manager.stop(stopOpts);
    await started;
    await probes.close();
    await client.close();
  };
  return { manager, probeUrl: probes.url, identity, metrics, stop: (stopOpts) => (stopping ??= stop(stopOpts)) };
}

/** `steward operator`: parse once, start, drain on SIGTERM/SIGINT, exit when leadership is lost. */
export async function runOperator(
  env: Record<string, string | undefined>,
  config: OperatorConfig = parseConfig(operatorConfigSchema, env),
  controllers?: ControllerFactory,
): Promise<RunningOperator> {
  const log = createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const running = await startOperator(config, {
    log,
    controllers,
    onLostLeadership: () => {
      // As controller-runtime: a replica that lost the Lease may hold stale state; a fresh process is simplest.
      log.error('leadership lost; exiting so that a new process campaigns again');
      process.exit(1);
    },
  });
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => running.stop());
  return running;
}
