/**
 * The options of the gateway's route plugins, one type per concern, and `GatewayDeps`, the assembly's bag: their
 * intersection, so that a field no plugin reads cannot be assembled and a field a plugin reads cannot be left out.
 */
import type { FastifyRequest } from 'fastify';
import type { ApprovalRouteOptions } from './routes/approvals.js';
import type { OAuthResource } from '../auth/oauth.js';
import type { Logger } from '../../platform/log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import type { PolicyEvaluator } from '../policy/types.js';
import type { AuthDeps } from '../auth/authenticate.js';
import type { RateLimiter } from '../limits/index.js';
import type { OrganizationMetrics } from './org-metrics.js';
import type { LlmRouter } from '../llm/index.js';
import type { ConnectionSettings } from '../http/app.js';
import type { StewardTelemetry } from '../metrics/index.js';
import type { PlanForwarder } from './plan-forward.js';
import type { ConnectorRegistry } from '../connectors/index.js';
import type { BackgroundWrites, GovernedDeps } from '../governed/index.js';
import type { BudgetRouteOptions } from './routes/budgets.js';
import type { A2aParts } from '../a2a/routes.js';

/** How a request ended, for metrics: blocked is neither success nor failure. */
export type Outcome = 'success' | 'failed' | 'blocked';

export interface OutcomeRecorder {
  /** Marks the outcome of a request explicitly (pre-check blocks); otherwise the status code decides. */
  outcome(req: FastifyRequest, outcome: Outcome): void;
}

/** What `buildGateway` uses itself, around its route plugins: the HTTP app, authentication, metering, API docs. */
export interface GatewayServerOptions {
  log: Logger;
  version: string;
  bodyLimitBytes: number;
  /** Header, request and idle timeouts and the connection cap. */
  connections: ConnectionSettings;
  auth: AuthDeps;
  /**
   * The secret of identities an orchestrator forwards for a plan's connector-call steps (X-Steward-Identity,
   * STEWARD_INTERNAL_SECRET; standalone's per-process secret). Accepted on the connector call routes only
   * (forwarded-identity.ts). @default none: the header is refused
   */
  internalSecret?: string;
  /** OAuth access tokens on /mcp (STEWARD_MCP_OAUTH_*); absent: license and API keys only. */
  mcpOAuth?: OAuthResource;
  /** Per-organization limits on Agent endpoints. */
  limiter: RateLimiter;
  /** Request metrics per organization (the caller's organization is all /metrics shows). */
  requestMetrics: OrganizationMetrics;
  /** The process's Prometheus metrics (shared with the orchestrator in standalone mode). */
  telemetry: StewardTelemetry;
  /** Serve GET /openapi.json and GET /docs (STEWARD_API_DOCS). */
  apiDocs: boolean;
  /** Serve the governance console at /console (STEWARD_CONSOLE; runtime/console). @default false */
  console?: boolean;
  /** Tracks `background` writes; the app drains them when it closes. */
  backgroundWrites: BackgroundWrites;
}

/** `GET|POST /health` (health.ts). */
export interface HealthRouteOptions {
  store: Pick<Store, 'db'>;
  /** Its skipped documents are a warning. */
  source: DeclarativeSource;
  policies: PolicyEvaluator;
  /** Community mode, the signing secret and the Licenses. */
  auth: AuthDeps;
  now: () => Date;
  version: string;
}

/** `GET /healthz` and `GET /readyz` (probes.ts). */
export interface ProbeRouteOptions {
  store: Pick<Store, 'db'>;
  /**
   * Why the process should not get traffic now (the source not synced, draining): GET /readyz answers 503 naming
   * them. @default none
   */
  notReady?: () => readonly string[];
}

/** `GET /metrics` and `GET /metrics/prometheus` (routes/metrics.ts). */
export interface MetricsRouteOptions {
  store: Pick<Store, 'db'>;
  requestMetrics: OrganizationMetrics;
  telemetry: StewardTelemetry;
  now: () => Date;
}

/** `POST /api/audit/llm-call` (routes/audit.ts). */
export interface AuditRouteOptions extends Pick<GovernedDeps, 'auditRawText' | 'policies'> {
  store: Pick<Store, 'contexts' | 'audit'>;
  now: () => Date;
}

/** `/api/clients` (routes/clients.ts). */
export interface ClientRouteOptions {
  store: Pick<Store, 'clients' | 'audit'>;
  now: () => Date;
  /** Environment tag put in minted API keys (`client-{name}-{env}-…`). */
  environmentName: string;
}

/**
 * The routes that run the governed pipeline (runtime/governed): pre-check and every LLM call. The pipeline's
 * settings that the orchestrator may leave out are always set in the gateway, so they are required here.
 */
export interface GovernedRouteOptions extends GovernedDeps {
  /**
   * Body limit of the routes whose body is a policy input (pre-check, policy test, governed LLM calls, connector
   * calls): a body far larger than the policy input limit is refused while it arrives, before the event loop
   * parses it.
   */
  policyBodyLimitBytes: number;
  /** Marks blocked requests for the request metrics. */
  metrics: OutcomeRecorder;
  /** LLM tokens per organization per minute on governed LLM calls (`STEWARD_LLM_TOKENS_PER_MINUTE`). */
  tokens: { limiter: RateLimiter; perMinute: number };
  /**
   * When the records of a governed LLM call (its context and audit entry) are written (`STEWARD_LLM_AUDIT`):
   * `commit` before the answer (durable: an answer implies its entry), `background` behind it.
   */
  llmAudit: 'commit' | 'background';
  /** Store prompts and answers as sent, not as the policies left them (`STEWARD_AUDIT_RAW_TEXT`). */
  auditRawText: boolean;
  /** Where `background` writes go. */
  backgroundWrites: BackgroundWrites;
}

/** The governed routes that call a model: `/v1/chat/completions`, `/v1/messages`, `/v1/models` (chat.ts). */
export interface ModelRouteOptions extends GovernedRouteOptions {
  /** LLM providers; empty: governed calls answer PROVIDER_NOT_CONFIGURED. */
  llm: LlmRouter;
}

/** `POST /api/request` with a multi-agent plan (routes/plan-request.ts). */
export interface PlanRouteOptions extends GovernedRouteOptions {
  /**
   * Where plans go (STEWARD_ORCHESTRATOR_URL, or standalone's own orchestrator). Read per request: a test harness
   * sets it once its orchestrator is built. @default none: plans answer 503 SERVICE_UNAVAILABLE
   */
  plans?: PlanForwarder;
}

/** `POST /v1/execute` and `POST /api/request` (routes/llm.ts): a model call, or a plan. */
export interface LlmRouteOptions extends ModelRouteOptions, PlanRouteOptions {}

/** The connector endpoints and Steward's MCP server (routes/mcp.ts, connectors/). */
export interface ConnectorRouteOptions {
  /** The Connectors of the source, followed as they change (started by the assembly's `ready()`). */
  connectors: ConnectorRegistry;
  /** Which organizations a connector serves. */
  source: DeclarativeSource;
  /** The policy set of a call's input (`surface: "mcp"`) and the output scan of its result. */
  policies: PolicyEvaluator;
  /** Every call's audit entry, and the approvals of parked calls. */
  store: Pick<Store, 'audit' | 'approvals'>;
  now: () => Date;
  /** How long a parked call waits for approval, and an approval for its call (STEWARD_APPROVAL_TTL_SECONDS). */
  approvalTtlMs: number;
  policyBodyLimitBytes: number;
  /** The MCP server's version. */
  version: string;
  /** OAuth access tokens on /mcp: scopes decide the tools a token sees and calls. */
  mcpOAuth?: OAuthResource;
}

/** A2A (runtime/a2a/routes.ts): its routes need the model routes' options, the source, the credentials and these. */
export interface A2aOptions {
  /** Absent: STEWARD_A2A=false, no A2A routes. */
  a2a?: A2aParts;
}

/** `/api/v1/whoami` and `/api/v1/governance/*` (routes/governance.ts). */
export interface GovernanceRouteOptions {
  /** The Policies and AgentConfigs in force. */
  source: DeclarativeSource;
  /** Each policy's compiled state. */
  policies: PolicyEvaluator;
  /** The policy counts and the agents' latency, from the audit rows. */
  store: Pick<Store, 'db' | 'audit'>;
  /** The orchestrator, for the pool; absent: the pool is not shown. */
  plans?: PlanForwarder;
  now: () => Date;
}

/** Everything the gateway uses: what `assembleGateway` builds and `buildGateway` hands to its plugins. */
export type GatewayDeps = GatewayServerOptions &
  HealthRouteOptions &
  ProbeRouteOptions &
  MetricsRouteOptions &
  AuditRouteOptions &
  ClientRouteOptions &
  LlmRouteOptions &
  ConnectorRouteOptions &
  BudgetRouteOptions &
  ApprovalRouteOptions &
  GovernanceRouteOptions &
  A2aOptions;
