/**
 * The orchestrator's collaborators, shared by standalone, `steward orchestrator` and tests: the agent pool (remote
 * agents from STEWARD_AGENT_ENDPOINTS, else in-process agents for the AgentConfigs of the source) and the parallel
 * surface's dependencies, and the governed pipeline its model calls go through (plan steps, the LLM planner,
 * parallel queries). Credentials and rate limits are the gateway's (the same organizations and budgets).
 */
import type { AgentConfigResource } from '../../api/index.js';
import { definedFields } from '../../platform/objects.js';
import { DEFAULT_DECISION_LIMITS, type DecisionLimits } from '../../rego/decision.js';
import { LocalAgent } from '../agent/executor.js';
import { PolicyCache } from '../agent/policy-cache.js';
import type { AuthDeps } from '../auth/authenticate.js';
import { openBudgets } from '../budgets/index.js';
import type { BackgroundWrites, GovernedDeps } from '../governed/index.js';
import type { ConnectionSettings, HttpTls } from '../http/app.js';
import {
  MemoryConcurrencyLimiter,
  PLAN_TIER_LIMITS,
  type ConcurrencyLimiter,
  type RateLimiter,
} from '../limits/index.js';
import { routeWarning, type LlmRouter } from '../llm/index.js';
import type { Logger } from '../../platform/log.js';
import type { StewardTelemetry } from '../metrics/index.js';
import { DEFAULT_NAMESPACE, type DeclarativeSource } from '../source/index.js';
import type { Store } from '../store/index.js';
import type { BudgetSettings } from '../settings.js';
import { RegoPolicyEngine } from '../policy/engine.js';
import { policyObserver } from '../policy/observer.js';
import type { OrchestratorDeps } from './app.js';
import type { ConnectorGateway } from './plan/gateway-client.js';
import { PlanService } from './plan/service.js';
import { AgentPool, StandaloneSource, StaticSource, type MemberSource } from './pool/index.js';
import { WebhookService, type WebhookEmitter, type WebhookSettings } from './webhooks/index.js';

export interface OrchestratorSettings {
  bodyLimitBytes: number;
  connections?: ConnectionSettings;
  apiDocs?: boolean;
  /** HTTP/2 over TLS 1.3 (HTTP/1.1 by ALPN) on the orchestrator port; absent: plain HTTP/1.1. */
  tls?: HttpTls;
  /** Remote pool agents (STEWARD_AGENT_ENDPOINTS); absent: in-process agents, `spec.replicas` per AgentConfig. */
  agentEndpoints?: readonly string[];
  /**
   * Pool members from elsewhere (the cluster's EndpointSlices, STEWARD_AGENT_DISCOVERY=kubernetes); the pool closes
   * it. Absent: `agentEndpoints`, else in-process agents.
   */
  members?: MemberSource;
  /** The agents' shared token (STEWARD_AGENT_TOKEN), sent to remote agents. */
  agentToken?: string;
  /** PEM authorities that sign the remote agents' certificates (STEWARD_AGENT_CA_FILE); absent: the system's. */
  agentCa?: string | Buffer;
  /** @default 5000 */
  probeIntervalMs?: number;
  /** Healthy agents needed to take a parallel request (STEWARD_PARALLEL_MIN_HEALTHY_AGENTS). @default 1 */
  requiredAgents?: number;
  /** The Orchestrator document whose `spec.agentPool.selector` picks the in-process agents. @default the first */
  orchestrator?: { name: string; namespace?: string };
  /** Webhook delivery (STEWARD_WEBHOOK_*). @default WEBHOOK_DEFAULTS, private targets refused */
  webhooks?: WebhookSettings;
  /** Limits of one plan policy decision (STEWARD_POLICY_DEADLINE_MS, STEWARD_POLICY_MAX_STEPS). @default DEFAULT_DECISION_LIMITS */
  policyLimits?: Required<DecisionLimits>;
  /** The whole plan's budget, planning included (STEWARD_PLAN_TIMEOUT_MS). @default 110 s */
  planTimeoutMs?: number;
  /** 'auto': the LLM planner when a provider is configured; 'deterministic': never (STEWARD_PLANNER). @default auto */
  planner?: 'auto' | 'deterministic';
  /** The secret of identities forwarded by the gateway (STEWARD_INTERNAL_SECRET). */
  internalSecret?: string;
  /**
   * The gateway's connector path for plans' connector-call steps: standalone's gateway in process, else
   * STEWARD_GATEWAY_URL (plan/gateway-client.ts). Absent: those steps fail with SERVICE_UNAVAILABLE.
   */
  connectorGateway?: ConnectorGateway;
  /** Lifetime of the context rows of governed calls (standalone: the gateway's STEWARD_CONTEXT_TTL_MS). @default 5 min */
  contextTtlMs?: number;
  /** When governed calls' records are written (STEWARD_LLM_AUDIT); `background` needs `backgroundWrites`. @default 'commit' */
  llmAudit?: 'commit' | 'background';
  /** Store governed calls' prompts and answers as they were (STEWARD_AUDIT_RAW_TEXT). @default false */
  auditRawText?: boolean;
  /** Budgets charged by plan steps, the planner and parallel queries (STEWARD_MODEL_PRICES, ...); absent: none. */
  budgets?: BudgetSettings;
}

/** The lifetime of a governed call's context row when the settings give none: the gateway's default. */
export const DEFAULT_CONTEXT_TTL_MS = 5 * 60_000;
/** How long closing waits for audit rows written behind their answers. */
const BACKGROUND_DRAIN_MS = 5000;

export interface OrchestratorShared {
  store: Store;
  source: DeclarativeSource;
  log: Logger;
  version: string;
  auth: AuthDeps;
  limiter: RateLimiter;
  /** Concurrent plans per organization (Redis when configured). @default in this process */
  concurrency?: ConcurrencyLimiter;
  /** The LLM providers of in-process agents (the gateway's router in standalone; its owner closes it). */
  llm: LlmRouter;
  telemetry: StewardTelemetry;
  now?: () => Date;
  /** LLM tokens per organization per minute (the gateway's limiter, so that the budget is shared); absent: none. */
  tokens?: GovernedDeps['tokens'];
  /** Tracks records written behind their answers (the gateway's in standalone); its owner drains it too. */
  backgroundWrites?: BackgroundWrites;
  /** Why the process should not get traffic now (GET /readyz): draining, the cluster parts not synced. */
  notReady?: () => readonly string[];
}

export interface OrchestratorParts {
  deps: OrchestratorDeps;
  pool: AgentPool;
  /** What the plan surface calls when a plan or a step ends (plan.completed, plan.failed, step.completed). */
  webhooks: WebhookEmitter;
  /** Closes the pool (in-flight items finish first). The owner closes the shared parts. */
  close(): Promise<void>;
}

/** Distinct policy texts the orchestrator and its in-process agents keep compiled. */
const POLICY_CACHE_ENTRIES = 1024;

export async function assembleOrchestrator(
  settings: OrchestratorSettings,
  shared: OrchestratorShared,
): Promise<OrchestratorParts> {
  const policies = new PolicyCache(POLICY_CACHE_ENTRIES);
  const poolLog = shared.log.child({ module: 'pool' });
  const members: MemberSource =
    settings.members ??
    (settings.agentEndpoints
      ? new StaticSource(settings.agentEndpoints, {
          token: settings.agentToken,
          ...(settings.agentCa ? { ca: settings.agentCa } : {}),
        })
      : new StandaloneSource({
          source: shared.source,
          orchestrator: settings.orchestrator,
          log: poolLog,
          factory: (config, replica) => {
            const agent = new LocalAgent({
              id: agentId(config, replica),
              llm: shared.llm,
              spec: config.spec,
              policies,
            });
            // NB: once per AgentConfig (and again when it changes), not once per replica.
            const warning =
              replica === 0 && config.spec.llm ? routeWarning(config.metadata.name, agent.route) : undefined;
            if (warning) poolLog.warn({ agentConfig: config.metadata.name, llmRoute: agent.route }, warning);
            return agent;
          },
        }));
  const pool = await AgentPool.start({ source: members, probeIntervalMs: settings.probeIntervalMs, log: poolLog });
  const webhooks = new WebhookService(
    shared.store.db,
    settings.webhooks ?? {},
    shared.log.child({ module: 'webhooks' }),
    shared.now,
  );
  webhooks.start();
  const status = pool.status();
  shared.log.info({ pool: members.name, ...status }, 'agent pool ready');
  // The plan pre-flight's and policy-check steps' policy set: the same Policy documents and limits as the gateway's pre-check.
  const planPolicies = new RegoPolicyEngine({
    source: shared.source,
    log: shared.log.child({ module: 'plan-policies' }),
    limits: settings.policyLimits ?? DEFAULT_DECISION_LIMITS,
    observer: policyObserver(shared.telemetry),
    // The last good version of each Policy survives a restart (ADR 0016), as on the gateway.
    lastGood: shared.store.lastGoodPolicies,
    ...(shared.now ? { now: shared.now } : {}),
  });
  await planPolicies.restored().catch(async (err: unknown) => {
    planPolicies.close();
    await webhooks.close();
    await pool.close();
    throw err;
  });
  const budgets = settings.budgets
    ? openBudgets({
        source: shared.source,
        store: shared.store,
        settings: settings.budgets,
        log: shared.log,
        ...(shared.now ? { now: shared.now } : {}),
      })
    : undefined;
  const governed: GovernedDeps = {
    log: shared.log.child({ module: 'governed' }),
    store: shared.store,
    policies: planPolicies,
    now: shared.now ?? (() => new Date()),
    contextTtlMs: settings.contextTtlMs ?? DEFAULT_CONTEXT_TTL_MS,
    telemetry: shared.telemetry,
    ...definedFields({
      tokens: shared.tokens,
      llmAudit: settings.llmAudit,
      backgroundWrites: shared.backgroundWrites,
      auditRawText: settings.auditRawText,
      budgets: budgets?.gate,
    }),
  };
  const plans = new PlanService({
    pool,
    source: shared.source,
    store: shared.store,
    llm: shared.llm,
    policies: planPolicies,
    governed,
    connectors: settings.connectorGateway,
    events: webhooks,
    planner: settings.planner,
    // Remote agents call their own providers; only in-process ones need this process's.
    checkProviders: members instanceof StandaloneSource,
    planTimeoutMs: settings.planTimeoutMs,
    log: shared.log.child({ module: 'plans' }),
  });
  const concurrency =
    shared.concurrency ?? new MemoryConcurrencyLimiter({ defaultLimit: PLAN_TIER_LIMITS.community.concurrentPlans });
  return {
    pool,
    webhooks,
    deps: {
      log: shared.log,
      store: shared.store,
      source: shared.source,
      version: shared.version,
      bodyLimitBytes: settings.bodyLimitBytes,
      auth: shared.auth,
      connections: settings.connections,
      now: shared.now,
      telemetry: shared.telemetry,
      apiDocs: settings.apiDocs,
      tls: settings.tls,
      parallel: { pool, limiter: shared.limiter, policies, governed, requiredAgents: settings.requiredAgents },
      webhooks,
      plan: { service: plans, store: shared.store, limiter: shared.limiter, concurrency },
      internalSecret: settings.internalSecret,
      notReady: shared.notReady,
    },
    close: async () => {
      await webhooks.close();
      await pool.close();
      // NB: after the pool: the last answers' records are tracked by then; before the owner closes the store.
      await shared.backgroundWrites?.drain(BACKGROUND_DRAIN_MS);
      planPolicies.close();
      budgets?.close();
    },
  };
}

/** An in-process agent's id: `travel-planner-0`, or `team-a/travel-planner-0` outside the default namespace. */
function agentId(config: AgentConfigResource, replica: number): string {
  const ns = config.metadata.namespace ?? DEFAULT_NAMESPACE;
  return `${ns === DEFAULT_NAMESPACE ? '' : `${ns}/`}${config.metadata.name}-${replica}`;
}
