/**
 * `steward operator`: the manager, its controllers, leader election and the probe server, wired from parsed
 * settings. `startOperator` builds and starts it in-process (tests); `runOperator` adds the process concerns:
 * SIGTERM drain and, when the Lease is lost, exit (Kubernetes restarts the pod, which campaigns again).
 */
import { hostname } from 'node:os';
import { KubeClient } from '../platform/kube/client.js';
import { createLogger, logFormat, type Logger } from '../platform/log.js';
import { installShutdown } from '../platform/shutdown.js';
import { assemble } from '../platform/lifecycle.js';
import { listenFailure } from '../platform/startup-error.js';
import { VERSION } from '../platform/version.js';
import type { OperatorSettings } from './settings.js';
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
  /** Kubeconfig text instead of the kubeconfig file (tests). */
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
export function operatorIdentity(config: Pick<OperatorSettings, 'podName'>): string {
  return config.podName ?? `${hostname()}-${process.pid}`;
}

export async function startOperator(config: OperatorSettings, opts: OperatorOptions = {}): Promise<RunningOperator> {
  const log = opts.log ?? createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const identity = operatorIdentity(config);
  const metrics = new OperatorMetrics({ version: VERSION });
  let draining = false;
  let releaseLease = true;
  return assemble(log, async (life) => {
    const client = await life.open(
      'kubernetes client',
      () =>
        KubeClient.connect({
          kubeconfigYaml: opts.kubeconfigYaml,
          kubeconfigFile: opts.kubeconfigYaml === undefined ? config.kubeconfig : undefined,
          podRoot: config.podRoot,
          qps: config.kube.qps,
          burst: config.kube.burst,
          userAgent: `steward-operator/${VERSION}`,
          observer: metrics.kubeRequests,
        }),
      (c) => c.close(),
    );
    const election = config.leaderElection;
    const manager = new Manager({
      client,
      log: log.child({ component: 'operator' }),
      namespace: config.watchNamespace,
      concurrency: config.concurrency,
      backoff: opts.backoffBaseDelayMs === undefined ? undefined : { baseDelayMs: opts.backoffBaseDelayMs },
      onLostLeadership: opts.onLostLeadership,
      metrics,
      // The controllers' workers (and any other leader-only component) run for each term of leadership.
      lead: (term) => void life.lead(term),
      leaderElection: election && {
        namespace: config.namespace,
        name: election.leaseName,
        identity,
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
      },
    });
    const ctx = manager.context({
      licenseSigningSecret: config.licenseSigningSecret,
      defaultImage: config.defaultImage,
      watchNamespace: config.watchNamespace,
    });
    for (const spec of (opts.controllers ?? ((c: ControllerContext) => allControllers(c)))(ctx)) manager.add(spec);
    metrics.watch(manager);
    await life.start(manager.workers);

    const probes = await life.open(
      'probe server',
      () =>
        startProbeServer({
          host: config.probes.host,
          port: config.probes.port,
          ready: () => !draining && manager.ready,
          metrics: () => metrics.scrape(),
        }).catch((err: unknown) => {
          throw listenFailure(err, config.probes.setting, config.probes.host, config.probes.port);
        }),
      (p) => p.close(),
    );
    // NB: not awaited: the probe server answers (readyz 503) while the first lists are still coming in.
    let started: Promise<void> = Promise.resolve();
    await life.start({
      name: 'manager',
      start: () => {
        started = manager.start().catch((err: unknown) => log.error({ err }, 'manager failed to start'));
      },
      stop: async () => {
        await manager.stop({ releaseLease });
        await started;
      },
    });
    life.defer('readiness', () => (draining = true));
    log.info(
      {
        version: VERSION,
        identity,
        probes: probes.url,
        leaderElection: election !== undefined,
        namespace: config.watchNamespace ?? '(all)',
      },
      'steward operator started',
    );
    return {
      manager,
      probeUrl: probes.url,
      identity,
      metrics,
      stop: (stopOpts = {}) => {
        if (stopOpts.releaseLease === false) releaseLease = false;
        return life.stop();
      },
    };
  });
}

/** `steward operator`: start from the parsed settings, drain on SIGTERM/SIGINT, exit when leadership is lost. */
export async function runOperator(config: OperatorSettings, controllers?: ControllerFactory): Promise<RunningOperator> {
  const log = createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const running = await startOperator(config, {
    log,
    controllers,
    onLostLeadership: () => {
      // As controller-runtime: a replica that lost the Lease may hold stale state; a fresh process is simplest.
      log.error('leadership lost; exiting so that a new process campaigns again');
      process.exit(1);
    },
  });
  installShutdown(log, config.shutdownTimeoutMs, () => running.stop());
  return running;
}
