import type { Logger } from '../../platform/log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { RegoPolicyEngine } from '../policy/engine.js';
import { policyObserver } from '../policy/observer.js';
import type { GatewayConfig, StandaloneConfig } from '../config.js';
import { BackgroundWrites } from '../governed/index.js';
import type { GatewayDeps } from './deps.js';
import { OrganizationMetrics } from './org-metrics.js';
import { llmFromSettings } from '../llm/index.js';
import { outcomeRecorder } from './observe.js';
import { connectionSettings } from '../http/app.js';
import { StewardTelemetry } from '../metrics/index.js';
import { assembleAccess } from '../auth/access.js';
import { httpPlanForwarder } from './plan-forward.js';
import { ConnectorRegistry, connectionResolver, type ConnectorStatusReporter } from '../connectors/index.js';

export interface GatewayParts {
  deps: GatewayDeps;
  /** The policy engine of `deps.policies`, with its per-policy load states (cluster status reporting). */
  policies: RegoPolicyEngine;
  /**
   * Resolves once the external services answer (Redis, when REDIS_URL is set) and the Connectors are loaded (their
   * pools connect in the background); rejects with a StartupError naming the setting otherwise. Call before listening.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the gateway's collaborators from the parsed config; shared by standalone and the gateway process. */
export function assembleGateway(
  config: GatewayConfig | StandaloneConfig,
  parts: {
    store: Store;
    source: DeclarativeSource;
    log: Logger;
    env: Readonly<Record<string, string | undefined>>;
    version: string;
    now?: () => Date;
    /** The process's Prometheus metrics. @default a registry of its own */
    telemetry?: StewardTelemetry;
    /** Secret keys for `secretRef`s (Connectors, Licenses): the Kubernetes source in a cluster; none standalone. */
    secrets?: (namespace: string, name: string, key: string) => string | undefined;
    /** Where connector health results go besides memory (Connector.status in a cluster). */
    connectorReporter?: ConnectorStatusReporter;
  },
): GatewayParts {
  const now = parts.now ?? (() => new Date());
  const telemetry = parts.telemetry ?? new StewardTelemetry({ version: parts.version });
  const access = assembleAccess(config, {
    source: parts.source,
    store: parts.store,
    env: parts.env,
    log: parts.log,
    now,
    resolveSecret: parts.secrets,
  });
  const policies = new RegoPolicyEngine({
    source: parts.source,
    // NB: `module`, not `component`: the gateway's logger already binds `component`, and pino would repeat the key.
    log: parts.log.child({ module: 'policies' }),
    limits: { deadlineMs: 200, maxSteps: 1_000_000 },
    inputMaxBytes: config.STEWARD_POLICY_INPUT_MAX_BYTES,
    inlineMaxBytes: config.STEWARD_POLICY_INLINE_MAX_BYTES,
    observer: policyObserver(telemetry),
  });
  telemetry.watchPolicyFailures(() => policies.failureCounts());
  parts.store.contexts.observeWrites(telemetry.storeWrite);
  parts.store.audit.observeWrites(telemetry.storeWrite);
  const { router: llm, described } = llmFromSettings(config);
  // NB: connection URLs come from the environment (fromEnv) standalone; in a cluster from Secrets (secretRef) too.
  const secrets = parts.secrets;
  const resolveUrl = connectionResolver({
    env: parts.env,
    ...(secrets ? { secrets: async (ns: string, name: string, key: string) => secrets(ns, name, key) } : {}),
  });
  const connectors = new ConnectorRegistry({
    source: parts.source,
    resolveUrl,
    reporter: parts.connectorReporter,
    log: parts.log.child({ module: 'connectors' }),
    now,
  });
  parts.log.info({ llm: described, rateLimits: access.windows, limiter: access.limiterKind }, 'gateway configured');
  const deps: GatewayDeps = {
    log: parts.log,
    store: parts.store,
    source: parts.source,
    version: parts.version,
    bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
    policyBodyLimitBytes: policyBodyLimit(config.STEWARD_BODY_LIMIT_BYTES, config.STEWARD_POLICY_INPUT_MAX_BYTES),
    connections: connectionSettings(config),
    now,
    auth: access.auth,
    policies,
    contextTtlMs: config.STEWARD_CONTEXT_TTL_MS,
    environmentName: config.STEWARD_ENVIRONMENT,
    metrics: outcomeRecorder,
    limiter: access.limiter,
    tokens: { limiter: access.tokenLimiter, perMinute: config.STEWARD_LLM_TOKENS_PER_MINUTE },
    llmAudit: config.STEWARD_LLM_AUDIT,
    auditRawText: config.STEWARD_AUDIT_RAW_TEXT,
    backgroundWrites: new BackgroundWrites(parts.log.child({ module: 'llm-audit' }), () =>
      telemetry.llmAuditBackgroundFailures.inc(),
    ),
    requestMetrics: new OrganizationMetrics({ windowSec: 60 }),
    llm,
    connectors,
    telemetry,
    apiDocs: config.STEWARD_API_DOCS,
    // A gateway of its own (not standalone) reaches the orchestrator over HTTP; standalone sets `plans` itself.
    ...('STEWARD_ORCHESTRATOR_URL' in config && config.STEWARD_ORCHESTRATOR_URL && config.STEWARD_INTERNAL_SECRET
      ? { plans: httpPlanForwarder(config.STEWARD_ORCHESTRATOR_URL, config.STEWARD_INTERNAL_SECRET) }
      : {}),
    // Orchestrators holding the same secret call the connector routes for plan steps; standalone sets it itself.
    ...('STEWARD_INTERNAL_SECRET' in config && config.STEWARD_INTERNAL_SECRET
      ? { internalSecret: config.STEWARD_INTERNAL_SECRET }
      : {}),
  };
  return {
    deps,
    policies,
    async ready() {
      await access.ready();
      await connectors.start();
    },
    async close() {
      access.close();
      policies.close();
      await Promise.all([llm.close(), connectors.close()]);
    },
  };
}

/**
 * The body limit of routes that evaluate their body: twice the policy input limit (JSON escapes make a text up to
 * twice as long in a body: `\n`, `\"`) plus room for the other fields, within the global body limit.
 */
export function policyBodyLimit(bodyLimitBytes: number, policyInputMaxBytes: number): number {
  return Math.min(bodyLimitBytes, 2 * policyInputMaxBytes + 64 * 1024);
}
