/**
 * `steward orchestrator`: the orchestrator alone on PORT (8081), for installs that run the gateway, the orchestrator
 * and the pool agents as separate processes. Credentials, Licenses and policies come from STEWARD_MANIFESTS, or from
 * the API server with STEWARD_SOURCE=kubernetes (dynamic policies are then Policy resources); rate limits are shared
 * with the gateways through REDIS_URL; the pool is the EndpointSlices of the selected AgentConfigs
 * (STEWARD_AGENT_DISCOVERY=kubernetes, docs/cluster-mode.md), STEWARD_AGENT_ENDPOINTS (remote `steward agent`
 * processes) or, without either, in-process agents.
 */
import { BackgroundWrites } from '../governed/index.js';
import { releaseStartupMemory } from '../../platform/memory.js';
import { startTracing, TRACING_OFF } from '../tracing/index.js';
import type { FastifyInstance } from 'fastify';
import { assembleAccess } from '../auth/access.js';
import type { OrchestratorProcessSettings } from '../settings.js';
import { listenUrl, type HttpTls } from '../http/app.js';
import { metricsServer } from '../http/metrics-server.js';
import { readSettingFile, readTlsSettings } from '../http/tls.js';
import { llmFromSettings } from '../llm/index.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { StewardTelemetry } from '../metrics/index.js';
import { installShutdown } from '../../platform/shutdown.js';
import { checkManifestFolders, FolderSource, manifestFolders, type DeclarativeSource } from '../source/index.js';
import { assemble } from '../../platform/lifecycle.js';
import { openConfiguredStore } from '../store/configured.js';
import { checkPorts } from '../../platform/ports.js';
import { VERSION } from '../../platform/version.js';
import { buildOrchestrator } from './app.js';
import { assembleOrchestrator, type OrchestratorParts, type OrchestratorSettings } from './assemble.js';
import type { MemberSource } from './pool/index.js';
import { httpConnectorGateway } from './plan/gateway-client.js';
import { openOrchestratorCluster } from './cluster.js';

export interface RunningOrchestrator {
  app: FastifyInstance;
  parts: OrchestratorParts;
  url: string;
  /** Stops accepting, drains requests in flight, closes the pool and the stores. Idempotent. */
  close(): Promise<void>;
}

/** Starts the orchestrator from its settings. Port 0 picks a free port (tests). */
export async function startOrchestrator(
  config: OrchestratorProcessSettings,
  log: Logger = createLogger({ level: config.log.level }),
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<RunningOrchestrator> {
  const tls = await readTlsSettings(config.tls);
  const agentCa = config.agents.caFile
    ? await readSettingFile('STEWARD_AGENT_CA_FILE', config.agents.caFile)
    : undefined;
  if (config.cluster.source === 'folder') await checkManifestFolders(config.manifests.folders);
  // NB: before the cluster and the store: a port in use is reported at once, not after they started.
  await checkPorts(config.listener.host, [config.listener, ...(config.metrics ? [config.metrics] : [])]);
  let draining = false;
  return assemble(log, async (life) => {
    // NB: opened first, closed last: the spans of the shutdown are still sent.
    await life.open(
      'tracing',
      () => startTracing(config.tracing ?? TRACING_OFF, 'steward-orchestrator', log),
      (t) => t.close(),
    );
    // NB: the cluster parts close last: the pool closes the discovery it was given, the source follows.
    const cluster = await life.open(
      'cluster',
      () => openOrchestratorCluster(config, log),
      (c) => c?.close(),
    );
    const source: DeclarativeSource =
      cluster?.source ??
      (await life.open(
        'source',
        () =>
          new FolderSource({
            dirs: manifestFolders(config.manifests.folders, { enabled: config.manifests.builtinPolicyPack }),
            writeDir: config.manifests.writeDir,
            watch: config.manifests.watch,
            log: log.child({ component: 'source' }),
          }),
        (s) => s.close(),
      ));
    const [store] = await Promise.all([
      life.open(
        'store',
        () => openConfiguredStore(config.store, log),
        (s) => s.close(),
      ),
      source.ready(),
    ]);
    const telemetry = new StewardTelemetry({ version: VERSION });
    const kubeSource = cluster?.kubeSource;
    const access = await life.open(
      'access',
      () =>
        assembleAccess(config.access, {
          source,
          store,
          env,
          log,
          now: () => new Date(),
          // License keySecretRefs: the namespace's Secrets, as the gateway reads them.
          ...(kubeSource
            ? { resolveSecret: (ns: string, name: string, key: string) => kubeSource.secret(ns, name, key) }
            : {}),
        }),
      (a) => a.close(),
    );
    await access.ready();
    const { router: llm, described } = llmFromSettings(config.llm);
    life.defer('llm providers', () => llm.close());
    const parts = await life.open(
      'orchestrator parts',
      () =>
        assembleOrchestrator(orchestratorAssembly(config, { tls, agentCa, members: cluster?.discovery }), {
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
          tokens: { limiter: access.tokenLimiter, perMinute: config.access.llmTokensPerMinute },
          backgroundWrites: new BackgroundWrites(log.child({ module: 'llm-audit' }), () =>
            telemetry.llmAuditBackgroundFailures.inc(),
          ),
          notReady: () => [...(draining ? ['the orchestrator is shutting down'] : []), ...(cluster?.notReady() ?? [])],
        }),
      (p) => p.close(),
    );
    cluster?.reportPool(parts.pool);
    const app = await life.listen('orchestrator server', buildOrchestrator(parts.deps), config.listener);
    if (config.metrics)
      await life.listen('metrics server', metricsServer(config.metrics, telemetry, log), config.metrics);
    // NB: GET /readyz fails from the first moment of the shutdown; requests in flight then drain.
    // Start-up's freed heap pages go back to the system once ready (platform/memory.ts).
    const release = releaseStartupMemory();
    life.defer('start-up memory', () => release.cancel());
    life.defer('readiness', () => (draining = true));
    const url = listenUrl(app, tls !== undefined);
    log.info(
      {
        url,
        protocols: tls ? ['h2', 'http/1.1'] : ['http/1.1'],
        source: config.cluster.source,
        pool: cluster?.discovery ? 'kubernetes' : config.agents.endpoints ? 'static' : 'in-process',
        agents: parts.pool.status(),
        database: store.db.backend,
        limiter: access.limiterKind,
        llm: described,
      },
      'steward orchestrator ready',
    );
    return { app, parts, url, close: () => life.stop() };
  });
}

/** The assembly's settings of an orchestrator process. */
function orchestratorAssembly(
  config: OrchestratorProcessSettings,
  extra: { tls: HttpTls | undefined; agentCa: Buffer | undefined; members: MemberSource | undefined },
): OrchestratorSettings {
  return {
    bodyLimitBytes: config.http.bodyLimitBytes,
    connections: config.http.connections,
    apiDocs: config.http.apiDocs,
    tls: extra.tls,
    agentEndpoints: config.agents.endpoints,
    members: extra.members,
    agentToken: config.agents.token,
    agentCa: extra.agentCa,
    probeIntervalMs: config.agents.probeIntervalMs,
    requiredAgents: config.orchestration.minHealthyAgents,
    webhooks: config.orchestration.webhooks,
    policyLimits: config.policy.limits,
    planTimeoutMs: config.orchestration.planTimeoutMs,
    planner: config.orchestration.planner,
    contextTtlMs: config.records.contextTtlMs,
    auditRawText: config.records.auditRawText,
    llmAudit: config.records.llmAudit,
    budgets: config.budgets,
    internalSecret: config.internalSecret,
    connectorGateway: config.gateway
      ? httpConnectorGateway(config.gateway.url, config.gateway.internalSecret)
      : undefined,
  };
}

/** `steward orchestrator`: start from the parsed settings, and shut down gracefully on SIGTERM/SIGINT. */
export async function runOrchestrator(
  config: OrchestratorProcessSettings,
  env: Record<string, string | undefined>,
): Promise<void> {
  const log = createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const running = await startOrchestrator(config, log, env);
  installShutdown(log, config.shutdownTimeoutMs, () => running.close());
}
