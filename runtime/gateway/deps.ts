import type { FastifyRequest } from 'fastify';
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
import type { BackgroundWrites } from '../governed/index.js';

/** How a request ended, for metrics: blocked is neither success nor failure. */
export type Outcome = 'success' | 'failed' | 'blocked';

export interface OutcomeRecorder {
  /** Marks the outcome of a request explicitly (pre-check blocks); otherwise the status code decides. */
  outcome(req: FastifyRequest, outcome: Outcome): void;
}

/** Everything the gateway's route plugins use; built by main, faked by nothing (tests build the real parts). */
export interface GatewayDeps {
  log: Logger;
  store: Store;
  source: DeclarativeSource;
  version: string;
  bodyLimitBytes: number;
  /**
   * Body limit of the routes whose body is a policy input (pre-check, policy test, governed LLM calls): a body
   * far larger than the policy input limit is refused while it arrives, before the event loop parses it.
   */
  policyBodyLimitBytes: number;
  /** Header, request and idle timeouts and the connection cap. @default DEFAULT_CONNECTION_SETTINGS */
  connections?: ConnectionSettings;
  now: () => Date;
  auth: AuthDeps;
  policies: PolicyEvaluator;
  /** Lifetime of a pre-check context. @default 5 min */
  contextTtlMs: number;
  /** Environment tag put in minted API keys (`client-{name}-{env}-…`). */
  environmentName: string;
  metrics?: OutcomeRecorder;
  /** Per-organization limits on Agent endpoints. */
  limiter: RateLimiter;
  /**
   * LLM tokens per organization per minute on governed LLM calls (`STEWARD_LLM_TOKENS_PER_MINUTE`); absent: no
   * token limit.
   */
  tokens?: { limiter: RateLimiter; perMinute: number };
  /** Request metrics per organization (the caller's organization is all /metrics shows). */
  requestMetrics: OrganizationMetrics;
  /**
   * When the records of a governed LLM call (its context and audit entry) are written (`STEWARD_LLM_AUDIT`):
   * `commit` before the answer (durable: an answer implies its entry), `background` behind it. @default 'commit'
   */
  llmAudit?: 'commit' | 'background';
  /** Store prompts and answers as sent, not as the policies left them (`STEWARD_AUDIT_RAW_TEXT`). @default false */
  auditRawText?: boolean;
  /** Tracks `background` writes and drains them when the app closes. */
  backgroundWrites?: BackgroundWrites;
  /** LLM providers; absent or empty: governed calls answer PROVIDER_NOT_CONFIGURED. */
  llm?: LlmRouter;
  /** The Connectors of the source, followed as they change (started by the assembly's `ready()`). */
  connectors: ConnectorRegistry;
  /** Where `/api/request` plans go (STEWARD_ORCHESTRATOR_URL, or standalone's own orchestrator); absent: 503. */
  plans?: PlanForwarder;
  /** The process's Prometheus metrics (shared with the orchestrator in standalone mode). */
  telemetry: StewardTelemetry;
  /** Serve GET /openapi.json and GET /docs (STEWARD_API_DOCS). @default true */
  apiDocs?: boolean;
  /**
   * The secret of identities an orchestrator forwards for a plan's connector-call steps (X-Steward-Identity,
   * STEWARD_INTERNAL_SECRET; standalone's per-process secret). Accepted on the connector call routes only
   * (forwarded-identity.ts); absent: the header is refused.
   */
  internalSecret?: string;
  /**
   * Why the process should not get traffic now (the source not synced, draining): GET /readyz answers 503 naming
   * them. @default none
   */
  notReady?: () => readonly string[];
}
