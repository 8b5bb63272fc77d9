/**
 * `steward agent`: one pool agent process serving one AgentConfig. Reads the AgentConfig once at start (the
 * operator rolls the Deployment when its spec changes), builds the LLM providers from the same settings as
 * the gateway, listens, and drains on SIGTERM.
 */
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { parseConfig } from '../../platform/config.js';
import { agentConfigSchema, type AgentRuntimeConfig } from '../config.js';
import { connectionSettings, listenUrl } from '../http/app.js';
import { readTlsSettings } from '../http/tls.js';
import { llmFromSettings, routeWarning } from '../llm/index.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { listenFailure } from '../../platform/startup-error.js';
import { agentNamespace, readAgentSpec } from './agent-spec.js';
import { LocalAgent } from './executor.js';
import { buildAgentServer } from './server.js';
import { installShutdown } from '../../platform/shutdown.js';

export interface RunningAgent {
  server: FastifyInstance;
  agent: LocalAgent;
  /** `http://host:port` or `https://host:port` */
  url: string;
  /** Stops taking work (readiness fails), drains in-flight items, closes the providers. Idempotent. */
  close(): Promise<void>;
}

/** Starts an agent from parsed settings. Port 0 picks a free port (tests). */
export async function startAgent(
  config: AgentRuntimeConfig,
  log: Logger = createLogger({ level: config.LOG_LEVEL }),
): Promise<RunningAgent> {
  const spec = await readAgentSpec(config, log);
  const tls = await readTlsSettings(config);
  const { router: llm, described } = llmFromSettings(config);
  const agent = new LocalAgent({
    id: config.STEWARD_AGENT_ID ?? `${config.STEWARD_AGENT_NAME}-${hostname()}-${process.pid}`,
    llm,
    spec,
    maxInFlight: config.STEWARD_AGENT_MAX_IN_FLIGHT,
    policyCacheEntries: config.STEWARD_AGENT_POLICY_CACHE_ENTRIES,
    policyDeadlineMs: config.STEWARD_AGENT_POLICY_DEADLINE_MS,
  });
  const { app: server, idle } = buildAgentServer({
    agent,
    log: log.child({ component: 'agent', agentId: agent.id }),
    bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
    connections: connectionSettings(config),
    tls,
    token: config.STEWARD_AGENT_TOKEN,
  });
  try {
    await server.listen({ host: config.STEWARD_HOST, port: config.STEWARD_AGENT_PORT });
  } catch (err) {
    await Promise.allSettled([server.close(), llm.close()]);
    throw listenFailure(err, 'STEWARD_AGENT_PORT', config.STEWARD_HOST, config.STEWARD_AGENT_PORT);
  }
  const url = listenUrl(server, tls !== undefined);
  log.info(
    {
      agentId: agent.id,
      agentConfig: `${agentNamespace(config)}/${config.STEWARD_AGENT_NAME}`,
      url,
      protocols: tls ? ['h2', 'http/1.1'] : ['http/1.1'],
      maxInFlight: agent.maxInFlight,
      llm: described,
    },
    'steward agent ready',
  );
  const warning = routeWarning(`${agentNamespace(config)}/${config.STEWARD_AGENT_NAME}`, agent.route);
  if (warning) log.warn({ agentId: agent.id, llmRoute: agent.route }, warning);
  let closing: Promise<void> | undefined;
  return {
    server,
    agent,
    url,
    close() {
      closing ??= (async () => {
        // NB: in this order: the agent takes no new work (/readyz fails, new items get 503 AGENT_CLOSING), the
        // items in flight finish and their answers are written, and only then does the server close its
        // connections (see AgentServer.idle).
        await agent.close();
        await idle();
        await server.close();
        await llm.close();
      })();
      return closing;
    },
  };
}

/** `steward agent`: parse the environment once, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runAgent(
  env: Record<string, string | undefined>,
  config: AgentRuntimeConfig = parseConfig(agentConfigSchema, env),
): Promise<void> {
  const log = createLogger({ level: config.LOG_LEVEL, format: logFormat(config.LOG_FORMAT) });
  const running = await startAgent(config, log);
  installShutdown(log, config.STEWARD_SHUTDOWN_TIMEOUT_MS, () => running.close());
}
