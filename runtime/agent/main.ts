/**
 * `steward agent`: one pool agent process serving one AgentConfig. Reads the AgentConfig once at start (the
 * operator rolls the Deployment when its spec changes), builds the LLM providers from the same settings as
 * the gateway, listens, and drains on SIGTERM.
 */
import { hostname } from 'node:os';
import { releaseStartupMemory } from '../../platform/memory.js';
import { startTracing, TRACING_OFF } from '../tracing/index.js';
import type { FastifyInstance } from 'fastify';
import type { AgentSettings } from '../settings.js';
import { listenUrl } from '../http/app.js';
import { readTlsSettings } from '../http/tls.js';
import { llmFromSettings, routeWarning } from '../llm/index.js';
import { createLogger, logFormat, type Logger } from '../../platform/log.js';
import { assemble } from '../../platform/lifecycle.js';
import { readAgentSpec } from './agent-spec.js';
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

/** Starts an agent from its settings. Port 0 picks a free port (tests). */
export async function startAgent(
  config: AgentSettings,
  log: Logger = createLogger({ level: config.log.level }),
): Promise<RunningAgent> {
  const spec = await readAgentSpec(config, log);
  const tls = await readTlsSettings(config.tls);
  const agentConfig = `${config.agent.namespace}/${config.agent.name}`;
  return assemble(log, async (life) => {
    // NB: opened first, closed last: the spans of the shutdown are still sent.
    await life.open(
      'tracing',
      () => startTracing(config.tracing ?? TRACING_OFF, 'steward-agent', log),
      (t) => t.close(),
    );
    const { router: llm, described } = llmFromSettings(config.llm);
    life.defer('llm providers', () => llm.close());
    const agent = new LocalAgent({
      id: config.agent.id ?? `${config.agent.name}-${hostname()}-${process.pid}`,
      llm,
      spec,
      maxInFlight: config.agent.maxInFlight,
      policyCacheEntries: config.agent.policyCacheEntries,
      policyDeadlineMs: config.agent.policyDeadlineMs,
    });
    const { app: server, idle } = buildAgentServer({
      agent,
      log: log.child({ component: 'agent', agentId: agent.id }),
      bodyLimitBytes: config.http.bodyLimitBytes,
      connections: config.http.connections,
      tls,
      token: config.agent.token,
    });
    await life.listen('agent server', server, config.listener);
    // Start-up's freed heap pages go back to the system once ready (platform/memory.ts).
    const release = releaseStartupMemory();
    life.defer('start-up memory', () => release.cancel());
    // NB: stopped in this order: the agent takes no new work (/readyz fails, new items get 503 AGENT_CLOSING), the
    // items in flight finish and their answers are written, and only then does the server close its connections
    // (see AgentServer.idle).
    life.defer('work in flight', () => idle());
    life.defer('agent', () => agent.close());
    const url = listenUrl(server, tls !== undefined);
    log.info(
      {
        agentId: agent.id,
        agentConfig,
        url,
        protocols: tls ? ['h2', 'http/1.1'] : ['http/1.1'],
        maxInFlight: agent.maxInFlight,
        llm: described,
      },
      'steward agent ready',
    );
    const warning = routeWarning(agentConfig, agent.route);
    if (warning) log.warn({ agentId: agent.id, llmRoute: agent.route }, warning);
    return { server, agent, url, close: () => life.stop() };
  });
}

/** `steward agent`: start from the parsed settings, and shut down gracefully on SIGTERM/SIGINT. */
export async function runAgent(config: AgentSettings): Promise<void> {
  const log = createLogger({ level: config.log.level, format: logFormat(config.log.format) });
  const running = await startAgent(config, log);
  installShutdown(log, config.shutdownTimeoutMs, () => running.close());
}
