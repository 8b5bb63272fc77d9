/**
 * `steward orchestrator`: the orchestrator alone on PORT (8081), for installs that run the gateway, the orchestrator
 * and the pool agents as separate processes. Credentials, Licenses and policies come from STEWARD_MANIFESTS, or from
 * the API server with STEWARD_SOURCE=kubernetes (dynamic policies are then Policy resources); rate limits are shared
 * with the gateways through REDIS_URL; the pool is the EndpointSlices of the selected AgentConfigs
 * (STEWARD_AGENT_DISCOVERY=kubernetes, docs/cluster-mode.md), STEWARD_AGENT_ENDPOINTS (remote `steward agent`
 * processes) or, without either, in-process agents.
 */
import { BackgroundWrites } from '../governed/index.js';
import type { FastifyInstance } from 'fastify';
import { assembleAccess } from '../auth/access.js';
import { parseConfig } from '../../platform/config.js';
import { orchestratorConfigSchema, webhookSettings, type OrchestratorConfig } from '../config.js';
import { connectionSettings, listenUrl } from '../http/app.js';
import { buildMetricsServer } from '../http/metrics-server.js';
import { readSettingFile, readTlsSettings } from '../http/tls.js';
import { llmFromSettings } from '../llm/index.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { StewardTelemetry } from '../metrics/index.js';
import { installShutdown } from '../../platform/shutdown.js';
import { checkManifestFolders, FolderSource, manifestFolders, type DeclarativeSource } from '../source/index.js';
import { listenFailure } from '../../platform/startup-error.js';
import { openConfiguredStore } from '../store/configured.js';
import { checkPorts } from '../../platform/ports.js';
import { VERSION } from '../../platform/version.js';
import { buildOrchestrator } from './app.js';
import { assembleOrchestrator, type OrchestratorParts } from './assemble.js';
import { httpConnectorGateway } from './plan/gateway-client.js';
import { openOrchestratorCluster } from './cluster.js';

export interface RunningOrchestrator {
  app: FastifyInstance;
  parts: OrchestratorParts;
  url: string;
  /** Stops accepting, drains requests in flight, closes the pool and the stores. Idempotent. */
  close(): Promise<void>;
}

/** Starts the orchestrator from parsed settings. PORT 0 picks a free port (tests). */
export async function startOrchestrator(
  config: OrchestratorConfig,
  log: Logger = createLogger({ level: config.LOG_LEVEL }),
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<RunningOrchestrator> {
  const tls = await readTlsSettings(config);
  const agentCa = config.STEWARD_AGENT_CA_FILE
    ? await readSettingFile('STEWARD_AGENT_CA_FILE', config.STEWARD_AGENT_CA_FILE)
    : undefined;
  if (config.STEWARD_SOURCE === 'folder') await checkManifestFolders(config.STEWARD_MANIFESTS);
  // NB: before the cluster and the store: a port in use is reported at once, not after they started.
  await checkPorts(config.STEWARD_HOST, [
    { setting: 'PORT', port: config.PORT },
    { setting: 'STEWARD_METRICS_PORT', port: config.STEWARD_METRICS_PORT },
  ]);
  const cluster = await openOrchestratorCluster(config, log);
  const source: DeclarativeSource =
    cluster?.source ??
    new FolderSource({
      dirs: manifestFolders(config.STEWARD_MANIFESTS, { enabled: config.STEWARD_BUILTIN_POLICY_PACK === 'enabled' }),
      writeDir: config.STEWARD_MANIFESTS_WRITE_DIR,
      watch: config.STEWARD_WATCH_MANIFESTS,
      log: log.child({ component: 'source' }),
    });
  // NB: the cluster parts close last: the pool closes the discovery it was given, the source follows.
  const closers: (() => unknown)[] = [
    ...(cluster ? [() => cluster.close()] : []),
    ...(cluster?.source ? [] : [() => source.close()]),
  ];
  const closeAll = async () => {
    for (const close of closers.reverse())
      await Promise.resolve(close()).catch((err: unknown) => log.warn({ err }, 'close failed'));
  };
  let draining = false;
  try {
    const [store] = await Promise.all([openConfiguredStore(config, log), source.ready()]);
    closers.push(() => store.close());
    const telemetry = new StewardTelemetry({ version: VERSION });
    const kubeSource = cluster?.kubeSource;
    const access = assembleAccess(config, {
      source,
      store,
      env,
      log,
      now: () => new Date(),
      // License keySecretRefs: the namespace's Secrets, as the gateway reads them.
      ...(kubeSource
        ? { resolveSecret: (ns: string, name: string, key: string) => kubeSource.secret(ns, name, key) }
        : {}),
    });
    closers.push(() => access.close());
    await access.ready();
    const { router: llm, described } = llmFromSettings(config);
    closers.push(() => llm.close());
    const parts = await assembleOrchestrator(
      {
        bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
        connections: connectionSettings(config),
        apiDocs: config.STEWARD_API_DOCS,
        tls,
        agentEndpoints: config.STEWARD_AGENT_ENDPOINTS,
        ...(cluster?.discovery ? { members: cluster.discovery } : {}),
        agentToken: config.STEWARD_AGENT_TOKEN,
        agentCa,
        probeIntervalMs: config.STEWARD_AGENT_PROBE_INTERVAL_MS,
        requiredAgents: config.STEWARD_PARALLEL_MIN_HEALTHY_AGENTS,
        webhooks: webhookSettings(config),
        planTimeoutMs: config.STEWARD_PLAN_TIMEOUT_MS,
        planner: config.STEWARD_PLANNER,
        contextTtlMs: config.STEWARD_CONTEXT_TTL_MS,
        auditRawText: config.STEWARD_AUDIT_RAW_TEXT,
        llmAudit: config.STEWARD_LLM_AUDIT,
        internalSecret: config.STEWARD_INTERNAL_SECRET,
        ...(config.STEWARD_GATEWAY_URL && config.STEWARD_INTERNAL_SECRET
          ? { connectorGateway: httpConnectorGateway(config.STEWARD_GATEWAY_URL, config.STEWARD_INTERNAL_SECRET) }
          : {}),
      },
      {
        store,
        source,
        log,
        version: VERSION,
        auth: access.auth,
        limiter: access.limiter,
        concurrency: access.concurrency,
        llm,
        telemetry,
        // The gateways' token budget (Redis when configured): plans and parallel queries draw on it too.
        tokens: { limiter: access.tokenLimiter, perMinute: config.STEWARD_LLM_TOKENS_PER_MINUTE },
        backgroundWrites: new BackgroundWrites(log.child({ module: 'llm-audit' }), () =>
          telemetry.llmAuditBackgroundFailures.inc(),
        ),
      },
    );
    closers.push(() => parts.close());
    cluster?.reportPool(parts.pool);
    const app = buildOrchestrator({
      ...parts.deps,
      notReady: () => [...(draining ? ['the orchestrator is shutting down'] : []), ...(cluster?.notReady() ?? [])],
    });
    closers.push(() => app.close());
    const metrics =
      config.STEWARD_METRICS_PORT === undefined
        ? undefined
        : buildMetricsServer({
            log: log.child({ component: 'metrics' }),
            telemetry,
            token: config.STEWARD_METRICS_TOKEN,
          });
    if (metrics) closers.push(() => metrics.close());
    await app.listen({ host: config.STEWARD_HOST, port: config.PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'PORT', config.STEWARD_HOST, config.PORT);
    });
    await metrics?.listen({ host: config.STEWARD_HOST, port: config.STEWARD_METRICS_PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'STEWARD_METRICS_PORT', config.STEWARD_HOST, config.STEWARD_METRICS_PORT!);
    });
    const url = listenUrl(app, tls !== undefined);
    log.info(
      {
        url,
        protocols: tls ? ['h2', 'http/1.1'] : ['http/1.1'],
        source: config.STEWARD_SOURCE,
        pool: cluster?.discovery ? 'kubernetes' : config.STEWARD_AGENT_ENDPOINTS ? 'static' : 'in-process',
        agents: parts.pool.status(),
        database: store.db.backend,
        limiter: access.limiterKind,
        llm: described,
      },
      'steward orchestrator ready',
    );
    let closing: Promise<void> | undefined;
    return {
      app,
      parts,
      url,
      close: () => {
        // NB: GET /readyz fails from the first moment of the shutdown; requests in flight then drain.
        draining = true;
        return (closing ??= closeAll());
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** `steward orchestrator`: parse the environment once, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runOrchestrator(
  env: Record<string, string | undefined>,
  config: OrchestratorConfig = parseConfig(orchestratorConfigSchema, env),
): Promise<void> {
  const log = createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const running = await startOrchestrator(config, log, env);
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => running.close());
}
