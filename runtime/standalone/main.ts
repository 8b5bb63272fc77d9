import { KIND_NAMES } from '../../api/index.js';
import type { FastifyInstance } from 'fastify';
import { parseConfig, standaloneConfigSchema, type StandaloneConfig } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { openStore, type Store } from '../store/index.js';
import { FolderSource } from '../source/index.js';
import { buildGateway } from '../gateway/app.js';
import { assembleGateway } from '../gateway/assemble.js';
import { buildOrchestrator } from '../orchestrator/app.js';
import { VERSION } from '../version.js';
import { connectionSettings } from '../http/app.js';

export interface Standalone {
  gateway: FastifyInstance;
  orchestrator: FastifyInstance;
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
  const source = new FolderSource({
    dirs: config.STEWARD_MANIFESTS,
    writeDir: config.STEWARD_MANIFESTS_WRITE_DIR,
    watch: config.STEWARD_WATCH_MANIFESTS,
    log: log.child({ component: 'source' }),
  });
  const [store] = await Promise.all([
    openStore({ databaseUrl: config.DATABASE_URL, dataDir: config.STEWARD_DATA_DIR }),
    source.ready(),
  ]);
  const gatewayParts = assembleGateway(config, { store, source, env, version: VERSION, log: log.child({ component: 'gateway' }) });
  const gateway = buildGateway(gatewayParts.deps);
  const orchestrator = buildOrchestrator({
    store,
    source,
    version: VERSION,
    bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
    auth: gatewayParts.deps.auth,
    connections: connectionSettings(config),
    log: log.child({ component: 'orchestrator' }),
  });
  try {
    await gateway.listen({ host: config.STEWARD_HOST, port: config.STEWARD_GATEWAY_PORT });
    await orchestrator.listen({ host: config.STEWARD_HOST, port: config.STEWARD_ORCHESTRATOR_PORT });
  } catch (err) {
    await Promise.allSettled([gateway.close(), orchestrator.close(), store.close(), source.close(), gatewayParts.close()]);
    throw err;
  }
  log.info(
    {
      gateway: address(gateway),
      orchestrator: address(orchestrator),
      database: store.db.backend,
      manifests: config.STEWARD_MANIFESTS,
      resources: countResources(source),
      skipped: source.issues().length,
      startupMs: Math.round(performance.now() - started),
    },
    'steward standalone ready',
  );

  let closing: Promise<void> | undefined;
  return {
    gateway,
    orchestrator,
    store,
    source,
    close() {
      closing ??= (async () => {
        await Promise.allSettled([gateway.close(), orchestrator.close()]);
        await gatewayParts.close();
        await Promise.allSettled([store.close(), source.close()]);
      })();
      return closing;
    },
  };
}

function address(app: FastifyInstance): string {
  const a = app.server.address();
  return typeof a === 'object' && a ? `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}` : String(a);
}

function countResources(source: FolderSource): Record<string, number> {
  return Object.fromEntries(KIND_NAMES.map((k) => [k, source.list(k).length]));
}

/** `steward standalone`: parse the environment once, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runStandalone(env: Record<string, string | undefined>): Promise<void> {
  const config = parseConfig(standaloneConfigSchema, env);
  const log = createLogger({ level: config.LOG_LEVEL });
  const app = await startStandalone(config, log, env);
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => app.close());
}

/** Graceful shutdown: one signal drains; a second signal or the timeout exits at once. */
export function installShutdown(log: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, timeoutMs }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        log.info('shutdown complete');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
