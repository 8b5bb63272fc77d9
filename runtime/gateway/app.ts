import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../http/app.js';
import { apiDocs } from '../http/api-docs.js';
import { httpMetrics } from '../http/metrics.js';
import { gatewayOpenApi } from '../../api/gen/openapi.js';
import { registerAuth } from '../auth/plugin.js';
import { forwardedIdentityRoutes } from './forwarded-identity.js';
import type { GatewayDeps } from './deps.js';
import { healthRoutes } from './health.js';
import { probeRoutes } from './probes.js';
import { gatewayObserve } from './observe.js';
import { metricsRoutes } from './routes/metrics.js';
import { llmRoutes } from './routes/llm.js';
import { auditRoutes } from './routes/audit.js';
import { auditReadRoutes } from './routes/audit-read.js';
import { clientRoutes } from './routes/clients.js';
import { precheckRoutes } from './routes/precheck.js';
import { mcpRoutes } from './routes/mcp.js';
import { openAiCompatRoutes } from './routes/openai-compat.js';
import { anthropicCompatRoutes } from './routes/anthropic-compat.js';
import { budgetRoutes } from './routes/budgets.js';
import { approvalRoutes } from './routes/approvals.js';
import { governanceRoutes } from './routes/governance.js';
import { a2aRoutes, type A2aParts } from '../a2a/routes.js';
import { consoleRoutes } from '../console/plugin.js';

export type { GatewayDeps } from './deps.js';

/** The longest a closing gateway waits for records written behind their answers (STEWARD_LLM_AUDIT=background). */
const BACKGROUND_DRAIN_MS = 5000;

/** The Agent gateway: registers its route plugins and returns the app; `main` listens. */
export function buildGateway(deps: GatewayDeps): FastifyInstance {
  const app = createHttpApp({
    log: deps.log,
    bodyLimitBytes: deps.bodyLimitBytes,
    surface: 'gateway',
    errorStyle: 'agent',
    connections: deps.connections,
  });
  void app.register(httpMetrics, { telemetry: deps.telemetry, server: 'gateway' });
  forwardedIdentityRoutes(app);
  registerAuth(app, 'gateway', deps.auth, {
    internalSecret: deps.internalSecret,
    ...(deps.mcpOAuth ? { oauth: deps.mcpOAuth } : {}),
  });
  void app.register(gatewayObserve, { limiter: deps.limiter, metrics: deps.requestMetrics, telemetry: deps.telemetry });
  // NB: each plugin is typed to its own options; it gets the bag itself, not a copy of its part, because routes
  // read some fields per request (`plans`, which the test harness sets once its orchestrator is built).
  void app.register(healthRoutes, deps);
  void app.register(probeRoutes, deps);
  void app.register(metricsRoutes, deps);
  void app.register(precheckRoutes, deps);
  void app.register(auditRoutes, deps);
  void app.register(auditReadRoutes, deps);
  void app.register(clientRoutes, deps);
  void app.register(llmRoutes, deps);
  void app.register(openAiCompatRoutes, deps);
  void app.register(anthropicCompatRoutes, deps);
  void app.register(mcpRoutes, deps);
  void app.register(budgetRoutes, deps);
  void app.register(approvalRoutes, deps);
  void app.register(governanceRoutes, deps);
  if (deps.a2a) void app.register(a2aRoutes, deps as GatewayDeps & { a2a: A2aParts });
  if (deps.apiDocs) void app.register(apiDocs, { document: gatewayOpenApi(deps.version) });
  if (deps.console) void app.register(consoleRoutes);
  // NB: after the server stops taking requests and before the store closes (the mains close the app first).
  app.addHook('onClose', () => deps.backgroundWrites.drain(BACKGROUND_DRAIN_MS));
  return app;
}
