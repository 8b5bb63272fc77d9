/**
 * `steward gateway`: the gateway alone on STEWARD_HOST:STEWARD_GATEWAY_PORT, as the operator runs it in a cluster
 * (docs/cluster-mode.md). Declarative state from STEWARD_SOURCE: the API server's resources of STEWARD_NAMESPACE
 * (informers) or folders of manifests, either over the built-in policy pack; PostgreSQL at DATABASE_URL (PGlite
 * without); Redis limits at REDIS_URL; plans forwarded to STEWARD_ORCHESTRATOR_URL. In a cluster it also reports
 * this pod's policy loads (Policy.status.byPod) and, while holding the Lease `O-gateway-status`, connector health
 * (Connector.status), the policy reports (Policy.status.report) and the budgets' spend (Budget.status).
 */
import { hostname } from 'node:os';
import { releaseStartupMemory } from '../../platform/memory.js';
import { startTracing, TRACING_OFF } from '../tracing/index.js';
import type { FastifyInstance } from 'fastify';
import { KIND_NAMES } from '../../api/index.js';
import { connectKube } from '../cluster/connect.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { installShutdown } from '../../platform/shutdown.js';
import { assemble, type Lifecycle } from '../../platform/lifecycle.js';
import { KubeEventRecorder, type KubeClient } from '../../platform/kube/index.js';
import { VERSION } from '../../platform/version.js';
import { startEvidence } from '../audit/evidence.js';
import {
  BUDGET_STATUS_INTERVAL_MS,
  BudgetStatusWriter,
  ConnectorStatusPublisher,
  LeaseRole,
  POLICY_REPORT_INTERVAL_MS,
  PolicyReportWriter,
  PolicyStatusReporter,
} from '../cluster/index.js';
import { PolicyReports } from '../policy/reports/index.js';
import type { GatewaySettings, ManifestSettings } from '../settings.js';
import { listenUrl } from '../http/app.js';
import { listening } from '../a2a/routes.js';
import { metricsServer } from '../http/metrics-server.js';
import {
  checkManifestFolders,
  FolderSource,
  KubernetesSource,
  manifestFolders,
  withBuiltinPack,
  type DeclarativeSource,
} from '../source/index.js';
import { openConfiguredStore } from '../store/configured.js';
import { checkPorts } from '../../platform/ports.js';
import type { Store } from '../store/index.js';
import { buildGateway } from './app.js';
import { assembleGateway, type GatewayParts } from './assemble.js';
import { httpPlanForwarder } from './plan-forward.js';

export interface RunningGateway {
  app: FastifyInstance;
  parts: GatewayParts;
  source: DeclarativeSource;
  store: Store;
  url: string;
  /** Fails /readyz, drains requests in flight, stops the status writers, closes the stores. Idempotent. */
  close(): Promise<void>;
}

/** Test knobs of cluster mode; production uses the defaults. */
export interface GatewayClusterOptions {
  /** Informer back-off and watch timeout. */
  informer?: { backoffMs?: number; maxBackoffMs?: number; watchTimeoutSeconds?: number };
  /** Lease timings of the connector-status role. */
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Least age of Connector.status.lastHealthCheck before an unchanged result refreshes it. @default 60s */
  connectorRefreshMs?: number;
}

/** Starts the gateway from its settings. Port 0 picks a free port (tests). */
export async function startGateway(
  config: GatewaySettings,
  log: Logger = createLogger({ level: config.log.level }),
  env: Readonly<Record<string, string | undefined>> = {},
  cluster: GatewayClusterOptions = {},
): Promise<RunningGateway> {
  const started = performance.now();
  let draining = false;
  return assemble(log, async (life) => {
    // NB: opened first, closed last: the spans of the shutdown are still sent.
    await life.open(
      'tracing',
      () => startTracing(config.tracing ?? TRACING_OFF, 'steward-gateway', log),
      (t) => t.close(),
    );
    // NB: before the cluster and the store: a port in use is reported at once, not after they started.
    await checkPorts(config.listener.host, [config.listener, ...(config.metrics ? [config.metrics] : [])]);
    const kube =
      config.cluster.source === 'kubernetes'
        ? await life.open(
            'kubernetes client',
            () => connectKube(config.cluster, 'gateway'),
            (k) => k.close(),
          )
        : undefined;
    const kubeSource = kube
      ? new KubernetesSource({
          client: kube,
          namespace: config.cluster.namespace,
          informer: cluster.informer,
          log: log.child({ component: 'source' }),
        })
      : undefined;
    // NB: the policy engine and the routes read the pack under the namespace's resources; the status writers the objects.
    const source = await life.open(
      'source',
      async () =>
        kubeSource
          ? withBuiltinPack(kubeSource, {
              enabled: config.manifests.builtinPolicyPack,
              log: log.child({ component: 'source' }),
            })
          : await folderSource(config.manifests, log),
      (s) => s.close(),
    );
    if (kube) log.info({ namespace: config.cluster.namespace }, 'waiting for the resources of the namespace');
    const [store] = await Promise.all([
      life.open(
        'store',
        () => openConfiguredStore(config.store, log.child({ component: 'store' })),
        (s) => s.close(),
      ),
      source.ready(),
    ]);
    // Signed checkpoints of the audit chains: every replica looks, each head is signed once.
    await life.open(
      'audit evidence',
      () => startEvidence({ db: store.db, settings: config.evidence, log }),
      (e) => e?.close(),
    );

    const pod = config.cluster.podName ?? hostname();
    // NB: a Budget's thresholds, told once per window by the replica whose settle crossed them (runtime/budgets).
    const events = kube
      ? new KubeEventRecorder({
          client: kube,
          component: 'steward-gateway',
          host: pod,
          log: log.child({ component: 'events' }),
        })
      : undefined;
    if (events) life.defer('events', () => events.flush());
    const publisher =
      kube && kubeSource
        ? new ConnectorStatusPublisher({
            client: kube,
            source: kubeSource,
            minIntervalMs: config.cluster.statusMinIntervalMs,
            refreshMs: cluster.connectorRefreshMs,
            log: log.child({ component: 'connector-status' }),
          })
        : undefined;
    const parts = await life.open(
      'gateway parts',
      () =>
        assembleGateway(config, {
          store,
          source,
          env,
          version: VERSION,
          log: log.child({ component: 'gateway' }),
          ...(kubeSource
            ? { secrets: (ns: string, name: string, key: string) => kubeSource.secret(ns, name, key) }
            : {}),
          connectorReporter: publisher,
          plans: config.orchestrator
            ? httpPlanForwarder(config.orchestrator.url, config.orchestrator.internalSecret)
            : undefined,
          internalSecret: config.internalSecret,
          ...(events && kubeSource
            ? {
                kubeEvent: async (b: { name: string; namespace: string }, reason: string, message: string) => {
                  const object = kubeSource.object('Budget', b.name);
                  if (object) events.event(object, 'Warning', reason, message);
                },
              }
            : {}),
          notReady: () => [
            ...(draining ? ['draining: the process is shutting down'] : []),
            ...(kubeSource && !kubeSource.synced ? ['the Kubernetes informers have not synced'] : []),
          ],
        }),
      (p) => p.close(),
    );
    await parts.ready();
    if (kube && kubeSource)
      await startClusterReporters(life, config, { kube, kubeSource, parts, store, publisher, pod, cluster, log });

    const app = await life.listen('gateway server', buildGateway(parts.deps), config.listener);
    listening(parts.deps.a2a, config.a2a.publicUrl, app.server.address());
    if (config.metrics)
      await life.listen('metrics server', metricsServer(config.metrics, parts.deps.telemetry, log), config.metrics);
    // NB: /readyz fails first, so that the Service stops sending new requests while the rest drains.
    // Start-up's freed heap pages go back to the system once ready (platform/memory.ts).
    const release = releaseStartupMemory();
    life.defer('start-up memory', () => release.cancel());
    life.defer('readiness', () => (draining = true));
    const url = listenUrl(app);
    log.info(
      {
        url,
        source: config.cluster.source,
        ...(kube ? { namespace: config.cluster.namespace, pod } : {}),
        database: store.db.backend,
        orchestrator: config.orchestrator?.url ?? null,
        resources: Object.fromEntries(KIND_NAMES.map((k) => [k, source.list(k).length])),
        skipped: source.issues().length,
        startupMs: Math.round(performance.now() - started),
      },
      'steward gateway ready',
    );
    return { app, parts, source, store, url, close: () => life.stop() };
  });
}

/**
 * In a cluster: this pod's policy loads (Policy.status.byPod) and, holding the Lease, connector health, the
 * policy reports (Policy.status.report) and the budgets' spend (Budget.status).
 */
async function startClusterReporters(
  life: Lifecycle,
  config: GatewaySettings,
  c: {
    kube: KubeClient;
    kubeSource: KubernetesSource;
    parts: GatewayParts;
    store: Store;
    publisher: ConnectorStatusPublisher | undefined;
    pod: string;
    cluster: GatewayClusterOptions;
    log: Logger;
  },
): Promise<void> {
  // Entries only for Policies that are objects: a pack policy has none to write to.
  const reporter = new PolicyStatusReporter({
    client: c.kube,
    source: c.kubeSource,
    engine: c.parts.policies,
    pod: c.pod,
    minIntervalMs: config.cluster.statusMinIntervalMs,
    log: c.log.child({ component: 'policy-status' }),
  });
  await life.start({ name: 'policy status', start: () => reporter.start(), stop: () => reporter.close() });
  const publisher = c.publisher;
  if (!publisher) return;
  publisher.track(() =>
    c.parts.deps.connectors.list().map((x) => [x.name, c.parts.deps.connectors.status(x.name)] as const),
  );
  life.defer('connector status', () => publisher.close());
  // Policy.status.report: every replica's calls, counted in the database by the holder of the same Lease.
  const reports = new PolicyReportWriter({
    client: c.kube,
    source: c.kubeSource,
    // NB: a longer deadline than the API's: one replica counts every organization's calls, in the background.
    reports: new PolicyReports(c.parts.deps.store.db, { timeoutMs: 30_000 }),
    intervalMs: Math.max(POLICY_REPORT_INTERVAL_MS, config.cluster.statusMinIntervalMs),
    log: c.log.child({ component: 'policy-report' }),
  });
  life.defer('policy reports', () => reports.close());
  // Budget.status: every replica's spend, read from the ledgers by the holder of the same Lease.
  const budgets = new BudgetStatusWriter({
    client: c.kube,
    source: c.kubeSource,
    ledger: c.store.budgets,
    intervalMs: Math.max(BUDGET_STATUS_INTERVAL_MS, config.cluster.statusMinIntervalMs),
    log: c.log.child({ component: 'budget-status' }),
  });
  life.defer('budget status', () => budgets.close());
  if (!config.cluster.orchestratorName) {
    c.log.warn(
      { setting: 'STEWARD_ORCHESTRATOR_NAME' },
      'STEWARD_ORCHESTRATOR_NAME is not set: no Lease to hold, Connector.status, Policy.status.report and Budget.status are not written',
    );
    return;
  }
  const role = new LeaseRole({
    client: c.kube,
    namespace: config.cluster.namespace,
    lease: `${config.cluster.orchestratorName}-gateway-status`,
    identity: c.pod,
    timing: c.cluster.lease,
    onChange: (holding) => {
      publisher.setLeading(holding);
      reports.setLeading(holding);
      budgets.setLeading(holding);
    },
    log: c.log.child({ component: 'connector-status' }),
  });
  await life.start({ name: 'connector status lease', start: () => role.start(), stop: () => role.stop() });
}

async function folderSource(manifests: ManifestSettings, log: Logger): Promise<FolderSource> {
  await checkManifestFolders(manifests.folders);
  return new FolderSource({
    dirs: manifestFolders(manifests.folders, { enabled: manifests.builtinPolicyPack }),
    writeDir: manifests.writeDir,
    watch: manifests.watch,
    log: log.child({ component: 'source' }),
  });
}

/** `steward gateway`: start from the parsed settings, and shut down gracefully on SIGTERM/SIGINT. */
export async function runGateway(config: GatewaySettings, env: Record<string, string | undefined>): Promise<void> {
  const log = createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const running = await startGateway(config, log, env);
  installShutdown(log, config.shutdownTimeoutMs, () => running.close());
}
