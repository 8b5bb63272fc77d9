/**
 * `steward gateway`: the gateway alone on STEWARD_HOST:STEWARD_GATEWAY_PORT, as the operator runs it in a cluster
 * (docs/cluster-mode.md). Declarative state from STEWARD_SOURCE: the API server's resources of STEWARD_NAMESPACE
 * (informers) or folders of manifests, either over the built-in policy pack; PostgreSQL at DATABASE_URL (PGlite
 * without); Redis limits at REDIS_URL; plans forwarded to STEWARD_ORCHESTRATOR_URL. In a cluster it also reports
 * this pod's policy loads (Policy.status.byPod) and, while holding the Lease `O-gateway-status`, connector health
 * (Connector.status).
 */
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { KIND_NAMES } from '../../api/index.js';
import { parseConfig } from '../../platform/config.js';
import { connectKube } from '../cluster/connect.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { installShutdown } from '../../platform/shutdown.js';
import { listenFailure } from '../../platform/startup-error.js';
import { VERSION } from '../../platform/version.js';
import { ConnectorStatusPublisher, LeaseRole, PolicyStatusReporter } from '../cluster/index.js';
import { gatewayConfigSchema, type GatewayConfig } from '../config.js';
import { listenUrl } from '../http/app.js';
import { buildMetricsServer } from '../http/metrics-server.js';
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

/** Starts the gateway from parsed settings. STEWARD_GATEWAY_PORT 0 picks a free port (tests). */
export async function startGateway(
  config: GatewayConfig,
  log: Logger = createLogger({ level: config.LOG_LEVEL }),
  env: Readonly<Record<string, string | undefined>> = {},
  cluster: GatewayClusterOptions = {},
): Promise<RunningGateway> {
  const started = performance.now();
  const closers: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse())
      await Promise.resolve(close()).catch((err: unknown) => log.warn({ err }, 'close failed'));
  };
  let draining = false;
  try {
    // NB: before the cluster and the store: a port in use is reported at once, not after they started.
    await checkPorts(config.STEWARD_HOST, [
      { setting: 'STEWARD_GATEWAY_PORT', port: config.STEWARD_GATEWAY_PORT },
      { setting: 'STEWARD_METRICS_PORT', port: config.STEWARD_METRICS_PORT },
    ]);
    const kube = config.STEWARD_SOURCE === 'kubernetes' ? await connectKube(config, 'gateway') : undefined;
    if (kube) closers.push(() => kube.close());
    const kubeSource = kube
      ? new KubernetesSource({
          client: kube,
          namespace: config.STEWARD_NAMESPACE,
          informer: cluster.informer,
          log: log.child({ component: 'source' }),
        })
      : undefined;
    // NB: the policy engine and the routes read the pack under the namespace's resources; the status writers the objects.
    const source = kubeSource
      ? withBuiltinPack(kubeSource, {
          enabled: config.STEWARD_BUILTIN_POLICY_PACK === 'enabled',
          log: log.child({ component: 'source' }),
        })
      : await folderSource(config, log);
    closers.push(() => source.close());
    if (kube) log.info({ namespace: config.STEWARD_NAMESPACE }, 'waiting for the resources of the namespace');
    const [store] = await Promise.all([openConfiguredStore(config, log.child({ component: 'store' })), source.ready()]);
    closers.push(() => store.close());

    const pod = config.STEWARD_POD_NAME ?? hostname();
    const publisher =
      kube && kubeSource
        ? new ConnectorStatusPublisher({
            client: kube,
            source: kubeSource,
            minIntervalMs: config.STEWARD_STATUS_MIN_INTERVAL_MS,
            refreshMs: cluster.connectorRefreshMs,
            log: log.child({ component: 'connector-status' }),
          })
        : undefined;
    const parts = assembleGateway(config, {
      store,
      source,
      env,
      version: VERSION,
      log: log.child({ component: 'gateway' }),
      ...(kubeSource ? { secrets: (ns: string, name: string, key: string) => kubeSource.secret(ns, name, key) } : {}),
      connectorReporter: publisher,
    });
    closers.push(() => parts.close());
    await parts.ready();

    if (kube && kubeSource) {
      // Entries only for Policies that are objects: a pack policy has none to write to.
      const reporter = new PolicyStatusReporter({
        client: kube,
        source: kubeSource,
        engine: parts.policies,
        pod,
        minIntervalMs: config.STEWARD_STATUS_MIN_INTERVAL_MS,
        log: log.child({ component: 'policy-status' }),
      });
      reporter.start();
      closers.push(() => reporter.close());
      if (publisher) {
        publisher.track(() =>
          parts.deps.connectors.list().map((c) => [c.name, parts.deps.connectors.status(c.name)] as const),
        );
        closers.push(() => publisher.close());
        if (config.STEWARD_ORCHESTRATOR_NAME) {
          const role = new LeaseRole({
            client: kube,
            namespace: config.STEWARD_NAMESPACE,
            lease: `${config.STEWARD_ORCHESTRATOR_NAME}-gateway-status`,
            identity: pod,
            timing: cluster.lease,
            onChange: (holding) => publisher.setLeading(holding),
            log: log.child({ component: 'connector-status' }),
          });
          role.start();
          closers.push(() => role.stop());
        } else {
          log.warn(
            { setting: 'STEWARD_ORCHESTRATOR_NAME' },
            'STEWARD_ORCHESTRATOR_NAME is not set: no Lease to hold, Connector.status is not written',
          );
        }
      }
    }

    parts.deps.notReady = () => [
      ...(draining ? ['draining: the process is shutting down'] : []),
      ...(kubeSource && !kubeSource.synced ? ['the Kubernetes informers have not synced'] : []),
    ];
    const app = buildGateway(parts.deps);
    closers.push(() => app.close());
    const metrics =
      config.STEWARD_METRICS_PORT === undefined
        ? undefined
        : buildMetricsServer({
            log: log.child({ component: 'metrics' }),
            telemetry: parts.deps.telemetry,
            token: config.STEWARD_METRICS_TOKEN,
          });
    if (metrics) closers.push(() => metrics.close());
    await app.listen({ host: config.STEWARD_HOST, port: config.STEWARD_GATEWAY_PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'STEWARD_GATEWAY_PORT', config.STEWARD_HOST, config.STEWARD_GATEWAY_PORT);
    });
    await metrics?.listen({ host: config.STEWARD_HOST, port: config.STEWARD_METRICS_PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'STEWARD_METRICS_PORT', config.STEWARD_HOST, config.STEWARD_METRICS_PORT!);
    });
    const url = listenUrl(app);
    log.info(
      {
        url,
        source: config.STEWARD_SOURCE,
        ...(kube ? { namespace: config.STEWARD_NAMESPACE, pod } : {}),
        database: store.db.backend,
        orchestrator: config.STEWARD_ORCHESTRATOR_URL ?? null,
        resources: Object.fromEntries(KIND_NAMES.map((k) => [k, source.list(k).length])),
        skipped: source.issues().length,
        startupMs: Math.round(performance.now() - started),
      },
      'steward gateway ready',
    );
    let closing: Promise<void> | undefined;
    return {
      app,
      parts,
      source,
      store,
      url,
      close: () =>
        (closing ??= (async () => {
          // NB: /readyz fails first, so that the Service stops sending new requests while these drain.
          draining = true;
          await closeAll();
        })()),
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

async function folderSource(config: GatewayConfig, log: Logger): Promise<FolderSource> {
  await checkManifestFolders(config.STEWARD_MANIFESTS);
  return new FolderSource({
    dirs: manifestFolders(config.STEWARD_MANIFESTS, { enabled: config.STEWARD_BUILTIN_POLICY_PACK === 'enabled' }),
    writeDir: config.STEWARD_MANIFESTS_WRITE_DIR,
    watch: config.STEWARD_WATCH_MANIFESTS,
    log: log.child({ component: 'source' }),
  });
}

/** `steward gateway`: parse the environment once, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runGateway(
  env: Record<string, string | undefined>,
  config: GatewayConfig = parseConfig(gatewayConfigSchema, env),
): Promise<void> {
  const log = createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const running = await startGateway(config, log, env);
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => running.close());
}
