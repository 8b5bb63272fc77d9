import { randomBytes } from 'node:crypto';
import { releaseStartupMemory } from '../../platform/memory.js';
import { KIND_NAMES } from '../../api/index.js';
import { startTracing, TRACING_OFF } from '../tracing/index.js';
import type { FastifyInstance } from 'fastify';
import type { StandaloneSettings } from '../settings.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import type { Store } from '../store/index.js';
import { openConfiguredStore } from '../store/configured.js';
import { startEvidence } from '../audit/evidence.js';
import { checkManifestFolders, FolderSource, manifestFolders } from '../source/index.js';
import { buildGateway } from '../gateway/app.js';
import { assembleGateway } from '../gateway/assemble.js';
import { inProcessPlanForwarder } from '../gateway/plan-forward.js';
import { buildOrchestrator } from '../orchestrator/app.js';
import { assembleOrchestrator } from '../orchestrator/assemble.js';
import { inProcessConnectorGateway } from '../orchestrator/plan/gateway-client.js';
import { readTlsSettings } from '../http/tls.js';
import { VERSION } from '../../platform/version.js';
import { listenUrl } from '../http/app.js';
import { listening } from '../a2a/routes.js';
import { metricsServer } from '../http/metrics-server.js';
import { assemble } from '../../platform/lifecycle.js';
import { checkPorts } from '../../platform/ports.js';
import { installShutdown } from '../../platform/shutdown.js';

export interface Standalone {
  gateway: FastifyInstance;
  orchestrator: FastifyInstance;
  /** The metrics listener, when STEWARD_METRICS_PORT is set. */
  metrics: FastifyInstance | undefined;
  store: Store;
  source: FolderSource;
  /** Stops accepting, drains in-flight requests, closes the stores; bounded by the shutdown timeout. */
  close(): Promise<void>;
}

/**
 * Everything in one process on embedded defaults: gateway, orchestrator, PGlite and a folder of manifests.
 * Ports 0 pick free ports (tests).
 */
export async function startStandalone(
  config: StandaloneSettings,
  log: Logger = createLogger({ level: config.log.level }),
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<Standalone> {
  const started = performance.now();
  // NB: before the store: a port in use is reported at once, not after the database started.
  await checkPorts(config.gatewayListener.host, [
    config.gatewayListener,
    config.orchestratorListener,
    ...(config.metrics ? [config.metrics] : []),
  ]);
  await checkManifestFolders(config.manifests.folders);
  const folders = manifestFolders(config.manifests.folders, { enabled: config.manifests.builtinPolicyPack });
  const tls = await readTlsSettings(config.tls);
  return assemble(log, async (life) => {
    // NB: opened first, closed last: the spans of the shutdown are still sent.
    await life.open(
      'tracing',
      () => startTracing(config.tracing ?? TRACING_OFF, 'steward', log),
      (t) => t.close(),
    );
    const source = await life.open(
      'source',
      () =>
        new FolderSource({
          dirs: folders,
          writeDir: config.manifests.writeDir,
          watch: config.manifests.watch,
          log: log.child({ component: 'source' }),
        }),
      (s) => s.close(),
    );
    const [store] = await Promise.all([
      life.open(
        'store',
        () => openConfiguredStore(config.store, log.child({ component: 'store' })),
        (s) => s.close(),
      ),
      source.ready(),
    ]);
    // Signed checkpoints of the audit chains (its key generated in the data folder on first start).
    await life.open(
      'audit evidence',
      () => startEvidence({ db: store.db, settings: config.evidence, log }),
      (e) => e?.close(),
    );
    // `/api/request` plans go to this process's orchestrator and plans' connector steps come back to its gateway,
    // without sockets, the identity signed with a per-process secret.
    const internalSecret = randomBytes(32).toString('hex');
    const servers: { gateway?: FastifyInstance; orchestrator?: FastifyInstance } = {};
    const gatewayParts = await life.open(
      'gateway parts',
      () =>
        assembleGateway(config, {
          store,
          source,
          env,
          version: VERSION,
          log: log.child({ component: 'gateway' }),
          plans: inProcessPlanForwarder(() => servers.orchestrator!, internalSecret),
          internalSecret,
        }),
      (p) => p.close(),
    );
    const gd = gatewayParts.deps;
    // The orchestrator shares the gateway's credentials, rate and token limits (one budget per organization), LLM
    // providers, governed-call settings and metrics registry; its agent pool runs in process, `spec.replicas` agents
    // per AgentConfig.
    const orchestratorParts = await life.open(
      'orchestrator parts',
      () =>
        assembleOrchestrator(
          {
            bodyLimitBytes: config.http.bodyLimitBytes,
            connections: config.http.connections,
            apiDocs: config.http.apiDocs,
            tls,
            requiredAgents: config.orchestration.minHealthyAgents,
            webhooks: config.orchestration.webhooks,
            policyLimits: config.policy.limits,
            planTimeoutMs: config.orchestration.planTimeoutMs,
            planner: config.orchestration.planner,
            internalSecret,
            connectorGateway: inProcessConnectorGateway(() => servers.gateway!, internalSecret),
            contextTtlMs: config.records.contextTtlMs,
            llmAudit: config.records.llmAudit,
            auditRawText: config.records.auditRawText,
            budgets: config.budgets,
          },
          {
            store,
            source,
            version: VERSION,
            log: log.child({ component: 'orchestrator' }),
            auth: gd.auth,
            limiter: gd.limiter,
            llm: gd.llm!,
            telemetry: gd.telemetry,
            // The plans' and parallel queries' model calls draw on the gateway's token budget and write behind its answers.
            tokens: gd.tokens,
            backgroundWrites: gd.backgroundWrites,
          },
        ),
      (p) => p.close(),
    );
    await gatewayParts.ready();
    const gateway = (servers.gateway = await life.listen('gateway server', buildGateway(gd), config.gatewayListener));
    listening(gd.a2a, config.a2a.publicUrl, gateway.server.address());
    const orchestrator = (servers.orchestrator = await life.listen(
      'orchestrator server',
      buildOrchestrator(orchestratorParts.deps),
      config.orchestratorListener,
    ));
    // The optional metrics listener: the same registry, for scrapers (docs/gateway.md, Metrics).
    const metrics = config.metrics
      ? await life.listen('metrics server', metricsServer(config.metrics, gd.telemetry, log), config.metrics)
      : undefined;
    log.info(
      {
        gateway: listenUrl(gateway),
        orchestrator: listenUrl(orchestrator, orchestratorParts.deps.tls !== undefined),
        agents: orchestratorParts.pool.status().available,
        ...(metrics ? { metrics: listenUrl(metrics) } : {}),
        database: store.db.backend,
        manifests: folders,
        policyPack: config.manifests.builtinPolicyPack ? 'enabled' : 'disabled',
        resources: countResources(source),
        skipped: source.issues().length,
        startupMs: Math.round(performance.now() - started),
        ...nextSteps(gateway, config.http),
      },
      'steward standalone ready',
    );
    // Start-up's freed heap pages go back to the system (platform/memory.ts).
    const release = releaseStartupMemory();
    life.defer('start-up memory', () => release.cancel());
    return { gateway, orchestrator, metrics, store, source, close: () => life.stop() };
  });
}

/** What to try next, in the ready line: the API docs and a pre-check a person can paste. */
function nextSteps(
  gateway: FastifyInstance,
  http: { apiDocs: boolean; console: boolean },
): { docs?: string; console?: string; try: string } {
  const a = gateway.server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  // NB: a wildcard bind is reachable on loopback; the hint must be a URL one can paste.
  const host =
    typeof a === 'object' && a && !['0.0.0.0', '::'].includes(a.address)
      ? a.address.includes(':')
        ? `[${a.address}]`
        : a.address
      : 'localhost';
  const base = `http://${host}:${port}`;
  const body = JSON.stringify({ client_id: 'demo', user_token: 'me', query: 'My SSN is 123-45-6789' });
  return {
    ...(http.apiDocs ? { docs: `${base}/docs` } : {}),
    ...(http.console ? { console: `${base}/console` } : {}),
    try: `curl -s ${base}/api/policy/pre-check -H 'content-type: application/json' -d '${body}'`,
  };
}

function countResources(source: FolderSource): Record<string, number> {
  return Object.fromEntries(KIND_NAMES.map((k) => [k, source.list(k).length]));
}

/** `steward standalone`: start from the parsed settings, and shut down gracefully on SIGTERM/SIGINT. */
export async function runStandalone(
  config: StandaloneSettings,
  env: Record<string, string | undefined>,
): Promise<void> {
  const log = createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const app = await startStandalone(config, log, env);
  installShutdown(log, config.shutdownTimeoutMs, () => app.close());
}
