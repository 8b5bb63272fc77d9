import { randomBytes } from 'node:crypto';
import { KIND_NAMES } from '../../api/index.js';
import type { FastifyInstance } from 'fastify';
import { parseConfig } from '../../platform/config.js';
import { standaloneConfigSchema, webhookSettings, type StandaloneConfig } from '../config.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import type { Store } from '../store/index.js';
import { openConfiguredStore } from '../store/configured.js';
import { checkManifestFolders, FolderSource, manifestFolders } from '../source/index.js';
import { buildGateway } from '../gateway/app.js';
import { assembleGateway } from '../gateway/assemble.js';
import { inProcessPlanForwarder } from '../gateway/plan-forward.js';
import { buildOrchestrator } from '../orchestrator/app.js';
import { assembleOrchestrator } from '../orchestrator/assemble.js';
import { inProcessConnectorGateway } from '../orchestrator/plan/gateway-client.js';
import { readTlsSettings } from '../http/tls.js';
import { VERSION } from '../../platform/version.js';
import { connectionSettings, listenUrl } from '../http/app.js';
import { buildMetricsServer } from '../http/metrics-server.js';
import { listenFailure } from '../../platform/startup-error.js';
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
  config: StandaloneConfig,
  log: Logger = createLogger({ level: config.LOG_LEVEL }),
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<Standalone> {
  const started = performance.now();
  // NB: before the store: a port in use is reported at once, not after the database started.
  await checkPorts(config.STEWARD_HOST, [
    { setting: 'STEWARD_GATEWAY_PORT', port: config.STEWARD_GATEWAY_PORT },
    { setting: 'STEWARD_ORCHESTRATOR_PORT', port: config.STEWARD_ORCHESTRATOR_PORT },
    { setting: 'STEWARD_METRICS_PORT', port: config.STEWARD_METRICS_PORT },
  ]);
  const folders = await checkedManifestFolders(config);
  const source = new FolderSource({
    dirs: folders,
    writeDir: config.STEWARD_MANIFESTS_WRITE_DIR,
    watch: config.STEWARD_WATCH_MANIFESTS,
    log: log.child({ component: 'source' }),
  });
  const [store] = await Promise.all([
    openConfiguredStore(config, log.child({ component: 'store' })),
    source.ready(),
  ]).catch(async (err: unknown) => {
    await source.close();
    throw err;
  });
  const gatewayParts = assembleGateway(config, {
    store,
    source,
    env,
    version: VERSION,
    log: log.child({ component: 'gateway' }),
  });
  // `/api/request` plans go to this process's orchestrator (no socket), the identity signed with a per-process secret.
  const internalSecret = randomBytes(32).toString('hex');
  const built: { orchestrator?: FastifyInstance } = {};
  gatewayParts.deps.plans = inProcessPlanForwarder(() => built.orchestrator!, internalSecret);
  // ...and plans' connector-call steps come back to this process's gateway with the same secret.
  gatewayParts.deps.internalSecret = internalSecret;
  const gateway = buildGateway(gatewayParts.deps);
  const gd = gatewayParts.deps;
  // The orchestrator shares the gateway's credentials, rate and token limits (one budget per organization), LLM
  // providers, governed-call settings and metrics registry; its agent pool runs in process, `spec.replicas` agents
  // per AgentConfig.
  const orchestratorParts = await assembleOrchestrator(
    {
      bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
      connections: connectionSettings(config),
      apiDocs: config.STEWARD_API_DOCS,
      tls: await readTlsSettings(config),
      requiredAgents: config.STEWARD_PARALLEL_MIN_HEALTHY_AGENTS,
      webhooks: webhookSettings(config),
      planTimeoutMs: config.STEWARD_PLAN_TIMEOUT_MS,
      planner: config.STEWARD_PLANNER,
      internalSecret,
      connectorGateway: inProcessConnectorGateway(() => gateway, internalSecret),
      contextTtlMs: config.STEWARD_CONTEXT_TTL_MS,
      llmAudit: config.STEWARD_LLM_AUDIT,
      auditRawText: config.STEWARD_AUDIT_RAW_TEXT,
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
      ...(gd.tokens ? { tokens: gd.tokens } : {}),
      ...(gd.backgroundWrites ? { backgroundWrites: gd.backgroundWrites } : {}),
    },
  ).catch(async (err: unknown) => {
    await Promise.allSettled([gatewayParts.close(), store.close(), source.close()]);
    throw err;
  });
  const orchestrator = buildOrchestrator(orchestratorParts.deps);
  built.orchestrator = orchestrator;
  // The optional metrics listener: the same registry, for scrapers (docs/gateway.md, Metrics).
  const metrics =
    config.STEWARD_METRICS_PORT === undefined
      ? undefined
      : buildMetricsServer({
          log: log.child({ component: 'metrics' }),
          telemetry: gatewayParts.deps.telemetry,
          token: config.STEWARD_METRICS_TOKEN,
        });
  try {
    await gatewayParts.ready();
    await gateway.listen({ host: config.STEWARD_HOST, port: config.STEWARD_GATEWAY_PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'STEWARD_GATEWAY_PORT', config.STEWARD_HOST, config.STEWARD_GATEWAY_PORT);
    });
    await orchestrator
      .listen({ host: config.STEWARD_HOST, port: config.STEWARD_ORCHESTRATOR_PORT })
      .catch((err: unknown) => {
        throw listenFailure(err, 'STEWARD_ORCHESTRATOR_PORT', config.STEWARD_HOST, config.STEWARD_ORCHESTRATOR_PORT);
      });
    await metrics?.listen({ host: config.STEWARD_HOST, port: config.STEWARD_METRICS_PORT }).catch((err: unknown) => {
      throw listenFailure(err, 'STEWARD_METRICS_PORT', config.STEWARD_HOST, config.STEWARD_METRICS_PORT!);
    });
  } catch (err) {
    await Promise.allSettled([gateway.close(), orchestrator.close(), metrics?.close(), orchestratorParts.close()]);
    await Promise.allSettled([store.close(), source.close(), gatewayParts.close()]);
    throw err;
  }
  log.info(
    {
      gateway: listenUrl(gateway),
      orchestrator: listenUrl(orchestrator, orchestratorParts.deps.tls !== undefined),
      agents: orchestratorParts.pool.status().available,
      ...(metrics ? { metrics: listenUrl(metrics) } : {}),
      database: store.db.backend,
      manifests: folders,
      policyPack: config.STEWARD_BUILTIN_POLICY_PACK,
      resources: countResources(source),
      skipped: source.issues().length,
      startupMs: Math.round(performance.now() - started),
      ...nextSteps(gateway, config.STEWARD_API_DOCS),
    },
    'steward standalone ready',
  );

  let closing: Promise<void> | undefined;
  return {
    gateway,
    orchestrator,
    metrics,
    store,
    source,
    close() {
      closing ??= (async () => {
        await Promise.allSettled([gateway.close(), orchestrator.close(), metrics?.close()]);
        await orchestratorParts.close();
        await gatewayParts.close();
        await Promise.allSettled([store.close(), source.close()]);
      })();
      return closing;
    },
  };
}

/** What to try next, in the ready line: the API docs and a pre-check a person can paste. */
function nextSteps(gateway: FastifyInstance, apiDocs: boolean): { docs?: string; try: string } {
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
    ...(apiDocs ? { docs: `${base}/docs` } : {}),
    try: `curl -s ${base}/api/policy/pre-check -H 'content-type: application/json' -d '${body}'`,
  };
}

/** The user's manifest folders (each must exist: a typo must not start a gateway without its manifests) and the pack. */
async function checkedManifestFolders(config: StandaloneConfig): Promise<string[]> {
  await checkManifestFolders(config.STEWARD_MANIFESTS);
  return manifestFolders(config.STEWARD_MANIFESTS, { enabled: config.STEWARD_BUILTIN_POLICY_PACK === 'enabled' });
}

function countResources(source: FolderSource): Record<string, number> {
  return Object.fromEntries(KIND_NAMES.map((k) => [k, source.list(k).length]));
}

/** `steward standalone`: parse the environment once, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runStandalone(
  env: Record<string, string | undefined>,
  config: StandaloneConfig = parseConfig(standaloneConfigSchema, env),
): Promise<void> {
  const log = createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const app = await startStandalone(config, log, env);
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => app.close());
}
