/**
 * From a parsed environment to the typed settings each main takes (runtime/settings.ts): the one place where
 * `STEWARD_*` names meet the code's camelCase names.
 */
import { isAbsolute, join } from 'node:path';
import { ConfigError, parseConfig } from '../../platform/config.js';
import { definedFields } from '../../platform/objects.js';
import type { ProviderConfigInput } from '../../runtime/llm/config.js';
import type {
  AccessSettings,
  AgentSettings,
  BudgetSettings,
  ClusterSettings,
  A2aSettings,
  EvidenceSettings,
  GatewaySettings,
  HttpSettings,
  LlmSettings,
  ManifestSettings,
  MetricsListener,
  OrchestrationSettings,
  OrchestratorProcessSettings,
  PolicySettings,
  ProcessSettings,
  RecordSettings,
  StandaloneSettings,
  StoreSettings,
  TlsFiles,
} from '../../runtime/settings.js';
import type { WebhookSettings } from '../../runtime/orchestrator/webhooks/index.js';
import { otlpUrl, type TracingSettings } from '../../runtime/tracing/setup.js';
import type { OAuthSettings } from '../../runtime/auth/oauth.js';
import {
  agentConfigSchema,
  gatewayConfigSchema,
  orchestratorConfigSchema,
  standaloneConfigSchema,
  type AgentConfig,
  type BaseConfig,
  type GatewayConfig,
  type LlmConfig,
  type OrchestratorConfig,
  type StandaloneConfig,
  type WebhookConfig,
} from './env.js';

type Env = Readonly<Record<string, string | undefined>>;

/** `steward standalone`'s settings from an environment; a ConfigError names every bad variable. */
export function standaloneSettings(env: Env): StandaloneSettings {
  return standaloneFrom(parseConfig(standaloneConfigSchema, env));
}

export function gatewaySettings(env: Env): GatewaySettings {
  return gatewayFrom(parseConfig(gatewayConfigSchema, env));
}

export function orchestratorSettings(env: Env): OrchestratorProcessSettings {
  return orchestratorFrom(parseConfig(orchestratorConfigSchema, env));
}

export function agentSettings(env: Env): AgentSettings {
  return agentFrom(parseConfig(agentConfigSchema, env));
}

export function standaloneFrom(c: StandaloneConfig): StandaloneSettings {
  return {
    ...processFrom(c),
    http: httpFrom(c),
    store: storeFrom(c),
    manifests: manifestsFrom(c),
    access: accessFrom(c),
    records: recordsFrom(c),
    budgets: budgetsFrom(c),
    evidence: evidenceFrom(c, 'standalone'),
    a2a: a2aFrom(c, 'standalone'),
    policy: policyFrom(c),
    llm: llmFrom(c),
    environmentName: c.STEWARD_ENVIRONMENT,
    mcpNewTools: c.STEWARD_MCP_NEW_TOOLS,
    ...definedFields({ mcpOAuth: mcpOAuthFrom(c) }),
    orchestration: orchestrationFrom(c),
    tls: tlsFrom(c),
    gatewayListener: { host: c.STEWARD_HOST, port: c.STEWARD_GATEWAY_PORT, setting: 'STEWARD_GATEWAY_PORT' },
    orchestratorListener: {
      host: c.STEWARD_HOST,
      port: c.STEWARD_ORCHESTRATOR_PORT,
      setting: 'STEWARD_ORCHESTRATOR_PORT',
    },
    metrics: metricsFrom(c),
  };
}

export function gatewayFrom(c: GatewayConfig): GatewaySettings {
  return {
    ...processFrom(c),
    http: httpFrom(c),
    store: storeFrom(c),
    manifests: manifestsFrom(c),
    cluster: clusterFrom(c),
    access: accessFrom(c),
    records: recordsFrom(c),
    budgets: budgetsFrom(c),
    evidence: evidenceFrom(c, 'gateway'),
    a2a: a2aFrom(c, 'gateway'),
    policy: policyFrom(c),
    llm: llmFrom(c),
    environmentName: c.STEWARD_ENVIRONMENT,
    mcpNewTools: c.STEWARD_MCP_NEW_TOOLS,
    ...definedFields({ mcpOAuth: mcpOAuthFrom(c) }),
    listener: { host: c.STEWARD_HOST, port: c.STEWARD_GATEWAY_PORT, setting: 'STEWARD_GATEWAY_PORT' },
    metrics: metricsFrom(c),
    // NB: the schema requires the secret with the URL.
    orchestrator:
      c.STEWARD_ORCHESTRATOR_URL && c.STEWARD_INTERNAL_SECRET
        ? { url: c.STEWARD_ORCHESTRATOR_URL, internalSecret: c.STEWARD_INTERNAL_SECRET }
        : undefined,
    internalSecret: c.STEWARD_INTERNAL_SECRET,
  };
}

export function orchestratorFrom(c: OrchestratorConfig): OrchestratorProcessSettings {
  return {
    ...processFrom(c),
    http: httpFrom(c),
    store: storeFrom(c),
    manifests: manifestsFrom(c),
    cluster: clusterFrom(c),
    access: accessFrom(c),
    records: recordsFrom(c),
    budgets: budgetsFrom(c),
    policy: { limits: { deadlineMs: c.STEWARD_POLICY_DEADLINE_MS, maxSteps: c.STEWARD_POLICY_MAX_STEPS } },
    llm: llmFrom(c),
    orchestration: orchestrationFrom(c),
    tls: tlsFrom(c),
    listener: { host: c.STEWARD_HOST, port: c.PORT, setting: 'PORT' },
    metrics: metricsFrom(c),
    agents: {
      discovery: c.STEWARD_AGENT_DISCOVERY,
      endpoints: c.STEWARD_AGENT_ENDPOINTS,
      probeIntervalMs: c.STEWARD_AGENT_PROBE_INTERVAL_MS,
      token: c.STEWARD_AGENT_TOKEN,
      caFile: c.STEWARD_AGENT_CA_FILE,
    },
    internalSecret: c.STEWARD_INTERNAL_SECRET,
    // NB: the schema requires the secret with the URL.
    gateway:
      c.STEWARD_GATEWAY_URL && c.STEWARD_INTERNAL_SECRET
        ? { url: c.STEWARD_GATEWAY_URL, internalSecret: c.STEWARD_INTERNAL_SECRET }
        : undefined,
  };
}

export function agentFrom(c: AgentConfig): AgentSettings {
  return {
    ...processFrom(c),
    http: httpFrom(c),
    manifests: manifestsFrom(c),
    cluster: clusterFrom(c),
    llm: llmFrom(c),
    tls: tlsFrom(c),
    listener: { host: c.STEWARD_HOST, port: c.STEWARD_AGENT_PORT, setting: 'STEWARD_AGENT_PORT' },
    agent: {
      name: c.STEWARD_AGENT_NAME,
      namespace: c.STEWARD_AGENT_NAMESPACE ?? c.STEWARD_NAMESPACE,
      id: c.STEWARD_AGENT_ID,
      maxInFlight: c.STEWARD_AGENT_MAX_IN_FLIGHT,
      policyCacheEntries: c.STEWARD_AGENT_POLICY_CACHE_ENTRIES,
      policyDeadlineMs: c.STEWARD_AGENT_POLICY_DEADLINE_MS,
      token: c.STEWARD_AGENT_TOKEN,
    },
  };
}

function processFrom(c: BaseConfig): ProcessSettings {
  return {
    log: { level: c.LOG_LEVEL, format: c.LOG_FORMAT },
    shutdownTimeoutMs: c.STEWARD_SHUTDOWN_TIMEOUT_MS,
    tracing: tracingFrom(c),
  };
}

function tracingFrom(c: BaseConfig): TracingSettings {
  const disabled = c.OTEL_SDK_DISABLED;
  const endpoint = c.OTEL_EXPORTER_OTLP_ENDPOINT;
  return {
    ...definedFields({
      tracesUrl: otlpUrl('traces', {
        disabled,
        exporter: c.OTEL_TRACES_EXPORTER,
        endpoint,
        signalEndpoint: c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
      }),
      metricsUrl: otlpUrl('metrics', {
        disabled,
        exporter: c.OTEL_METRICS_EXPORTER,
        endpoint,
        signalEndpoint: c.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
      }),
      serviceName: c.OTEL_SERVICE_NAME,
    }),
    sampler: c.OTEL_TRACES_SAMPLER,
    samplerRatio: c.OTEL_TRACES_SAMPLER_ARG,
    batchDelayMs: c.OTEL_BSP_SCHEDULE_DELAY,
    metricIntervalMs: c.OTEL_METRIC_EXPORT_INTERVAL,
    captureContent: c.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
  };
}

function httpFrom(c: BaseConfig): HttpSettings {
  return {
    bodyLimitBytes: c.STEWARD_BODY_LIMIT_BYTES,
    apiDocs: c.STEWARD_API_DOCS,
    console: c.STEWARD_CONSOLE,
    connections: {
      headersTimeoutMs: c.STEWARD_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: c.STEWARD_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: c.STEWARD_KEEPALIVE_TIMEOUT_MS,
      socketTimeoutMs: c.STEWARD_SOCKET_TIMEOUT_MS,
      maxRequestsPerSocket: c.STEWARD_MAX_REQUESTS_PER_SOCKET,
      maxConnections: c.STEWARD_MAX_CONNECTIONS,
    },
  };
}

function storeFrom(c: BaseConfig): StoreSettings {
  return { databaseUrl: c.DATABASE_URL, dataDir: c.STEWARD_DATA_DIR };
}

function manifestsFrom(c: BaseConfig): ManifestSettings {
  return {
    folders: c.STEWARD_MANIFESTS,
    builtinPolicyPack: c.STEWARD_BUILTIN_POLICY_PACK === 'enabled',
    writeDir: c.STEWARD_MANIFESTS_WRITE_DIR,
    watch: c.STEWARD_WATCH_MANIFESTS,
  };
}

function clusterFrom(c: GatewayConfig | OrchestratorConfig | AgentConfig): ClusterSettings {
  return {
    source: c.STEWARD_SOURCE,
    kubeconfig: c.STEWARD_KUBECONFIG,
    namespace: c.STEWARD_NAMESPACE,
    podName: c.STEWARD_POD_NAME,
    orchestratorName: c.STEWARD_ORCHESTRATOR_NAME,
    podRoot: c.STEWARD_POD_ROOT,
    statusMinIntervalMs: c.STEWARD_STATUS_MIN_INTERVAL_MS,
  };
}

function accessFrom(c: StandaloneConfig | GatewayConfig | OrchestratorConfig): AccessSettings {
  return {
    communityMode: c.STEWARD_COMMUNITY_MODE,
    licenseSigningSecret: c.STEWARD_LICENSE_SIGNING_SECRET,
    legacyCredentialsSunset: c.STEWARD_LEGACY_CREDENTIALS_SUNSET,
    operatorToken: c.STEWARD_METRICS_TOKEN,
    rateLimitPerMinute: c.STEWARD_RATE_LIMIT_PER_MINUTE,
    rateLimitPerHour: c.STEWARD_RATE_LIMIT_PER_HOUR,
    llmTokensPerMinute: c.STEWARD_LLM_TOKENS_PER_MINUTE,
    redisUrl: c.REDIS_URL,
  };
}

function budgetsFrom(c: StandaloneConfig | GatewayConfig | OrchestratorConfig): BudgetSettings {
  return {
    ...definedFields({ modelPrices: c.STEWARD_MODEL_PRICES, defaultModelPrice: c.STEWARD_DEFAULT_MODEL_PRICE }),
    reservationTtlMs: c.STEWARD_BUDGET_RESERVATION_TTL_MS,
  };
}

/** OAuth on /mcp: absent without an issuer; the resource identifier is required with one. */
function mcpOAuthFrom(c: StandaloneConfig | GatewayConfig): OAuthSettings | undefined {
  if (c.STEWARD_MCP_OAUTH_ISSUER === undefined) return undefined;
  if (c.STEWARD_MCP_RESOURCE === undefined)
    throw new ConfigError([
      {
        variable: 'STEWARD_MCP_RESOURCE',
        message: 'required with STEWARD_MCP_OAUTH_ISSUER: tokens must name this resource as their audience',
      },
    ]);
  return {
    issuer: c.STEWARD_MCP_OAUTH_ISSUER,
    resource: c.STEWARD_MCP_RESOURCE,
    organizationClaim: c.STEWARD_MCP_OAUTH_ORGANIZATION_CLAIM,
    scopes: c.STEWARD_MCP_OAUTH_SCOPES ?? {},
    ...definedFields({ jwksUrl: c.STEWARD_MCP_OAUTH_JWKS_URL, organization: c.STEWARD_MCP_OAUTH_ORGANIZATION }),
  };
}

/** The file standalone keeps its audit signing key in, under its data folder, when none is configured. */
export const STANDALONE_AUDIT_KEY = 'audit-signing-key.pem';

/** A file setting as this process sees it. NB: the test cluster's kubelet runs pods as processes: their mounts are under STEWARD_POD_ROOT. */
function mounted(c: StandaloneConfig | GatewayConfig, file: string | undefined): string | undefined {
  const podRoot = 'STEWARD_POD_ROOT' in c ? c.STEWARD_POD_ROOT : undefined;
  return file && podRoot && isAbsolute(file) ? join(podRoot, file) : file;
}

function evidenceFrom(c: StandaloneConfig | GatewayConfig, process: 'standalone' | 'gateway'): EvidenceSettings {
  // NB: standalone makes its own key on first start; a gateway in a cluster is given one (a Secret) or signs nothing.
  const own = process === 'standalone' && c.STEWARD_AUDIT_SIGNING_KEY_FILE === undefined;
  return {
    ...definedFields({
      signingKeyFile: own
        ? join(c.STEWARD_DATA_DIR, STANDALONE_AUDIT_KEY)
        : mounted(c, c.STEWARD_AUDIT_SIGNING_KEY_FILE),
      witnessFile: c.STEWARD_AUDIT_WITNESS_FILE,
      witnessUrl: c.STEWARD_AUDIT_WITNESS_URL,
      retentionDays: c.STEWARD_AUDIT_RETENTION_DAYS,
    }),
    generateKey: own,
    checkpointRows: c.STEWARD_AUDIT_CHECKPOINT_ROWS,
    checkpointMs: c.STEWARD_AUDIT_CHECKPOINT_SECONDS * 1000,
  };
}

/** The file standalone keeps its A2A card signing key in, under its data folder, when none is configured. */
export const STANDALONE_A2A_KEY = 'a2a-card-key.pem';

function a2aFrom(c: StandaloneConfig | GatewayConfig, process: 'standalone' | 'gateway'): A2aSettings {
  const own = process === 'standalone' && c.STEWARD_A2A_SIGNING_KEY_FILE === undefined;
  return {
    enabled: c.STEWARD_A2A,
    ...definedFields({
      publicUrl: c.STEWARD_PUBLIC_URL?.replace(/\/+$/, ''),
      signingKeyFile: own ? join(c.STEWARD_DATA_DIR, STANDALONE_A2A_KEY) : mounted(c, c.STEWARD_A2A_SIGNING_KEY_FILE),
    }),
    generateKey: own,
    allowPrivatePushTargets: c.STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS,
  };
}

function recordsFrom(c: StandaloneConfig | GatewayConfig | OrchestratorConfig): RecordSettings {
  return {
    contextTtlMs: c.STEWARD_CONTEXT_TTL_MS,
    llmAudit: c.STEWARD_LLM_AUDIT,
    auditRawText: c.STEWARD_AUDIT_RAW_TEXT,
    approvalTtlMs: c.STEWARD_APPROVAL_TTL_SECONDS * 1000,
  };
}

function policyFrom(
  c: Pick<
    GatewayConfig,
    | 'STEWARD_POLICY_INPUT_MAX_BYTES'
    | 'STEWARD_POLICY_INLINE_MAX_BYTES'
    | 'STEWARD_POLICY_DEADLINE_MS'
    | 'STEWARD_POLICY_MAX_STEPS'
  >,
): PolicySettings {
  return {
    inputMaxBytes: c.STEWARD_POLICY_INPUT_MAX_BYTES,
    inlineMaxBytes: c.STEWARD_POLICY_INLINE_MAX_BYTES,
    limits: { deadlineMs: c.STEWARD_POLICY_DEADLINE_MS, maxSteps: c.STEWARD_POLICY_MAX_STEPS },
  };
}

function orchestrationFrom(c: StandaloneConfig | OrchestratorConfig): OrchestrationSettings {
  return {
    planTimeoutMs: c.STEWARD_PLAN_TIMEOUT_MS,
    planner: c.STEWARD_PLANNER,
    minHealthyAgents: c.STEWARD_PARALLEL_MIN_HEALTHY_AGENTS,
    webhooks: webhookSettings(c),
  };
}

/** The webhook settings of a parsed configuration. */
export function webhookSettings(c: WebhookConfig): WebhookSettings {
  return {
    allowPrivateTargets: c.STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: c.STEWARD_WEBHOOK_TIMEOUT_MS,
    maxAttempts: c.STEWARD_WEBHOOK_MAX_ATTEMPTS,
    baseDelayMs: c.STEWARD_WEBHOOK_RETRY_BASE_MS,
    concurrency: c.STEWARD_WEBHOOK_CONCURRENCY,
    perOrganizationConcurrency: c.STEWARD_WEBHOOK_PER_ORGANIZATION_CONCURRENCY,
    perTargetConcurrency: c.STEWARD_WEBHOOK_PER_TARGET_CONCURRENCY,
    breakerFailureThreshold: c.STEWARD_WEBHOOK_BREAKER_FAILURE_THRESHOLD,
    breakerCooldownMs: c.STEWARD_WEBHOOK_BREAKER_COOLDOWN_MS,
  };
}

function tlsFrom(c: { STEWARD_TLS_CERT_FILE?: string; STEWARD_TLS_KEY_FILE?: string }): TlsFiles | undefined {
  // NB: the schemas require both files or neither.
  return c.STEWARD_TLS_CERT_FILE && c.STEWARD_TLS_KEY_FILE
    ? { certFile: c.STEWARD_TLS_CERT_FILE, keyFile: c.STEWARD_TLS_KEY_FILE }
    : undefined;
}

function metricsFrom(c: BaseConfig & { STEWARD_HOST: string }): MetricsListener | undefined {
  if (c.STEWARD_METRICS_PORT === undefined) return undefined;
  return {
    host: c.STEWARD_HOST,
    port: c.STEWARD_METRICS_PORT,
    setting: 'STEWARD_METRICS_PORT',
    token: c.STEWARD_METRICS_TOKEN,
  };
}

/** The providers the environment configures, in a fixed order; the first is the default unless one is named. */
export function llmFrom(c: LlmConfig): LlmSettings {
  const timeoutMs = c.STEWARD_LLM_TIMEOUT_MS;
  const providers: ProviderConfigInput[] = [];
  if (c.OPENAI_API_KEY)
    providers.push({
      type: 'openai',
      model: c.STEWARD_OPENAI_MODEL,
      apiKey: c.OPENAI_API_KEY,
      endpoint: c.OPENAI_BASE_URL,
      timeoutMs,
    });
  if (c.ANTHROPIC_API_KEY)
    providers.push({
      type: 'anthropic',
      model: c.STEWARD_ANTHROPIC_MODEL,
      apiKey: c.ANTHROPIC_API_KEY,
      endpoint: c.ANTHROPIC_BASE_URL,
      timeoutMs,
    });
  if (c.STEWARD_BEDROCK_REGION)
    providers.push({
      type: 'aws-bedrock',
      model: c.STEWARD_BEDROCK_MODEL,
      region: c.STEWARD_BEDROCK_REGION,
      endpoint: c.STEWARD_BEDROCK_ENDPOINT,
      timeoutMs,
    });
  if (c.OLLAMA_HOST)
    providers.push({ type: 'ollama', model: c.STEWARD_OLLAMA_MODEL, endpoint: c.OLLAMA_HOST, timeoutMs });
  if (c.STEWARD_LLM_ECHO) providers.push({ type: 'echo', model: 'echo', timeoutMs });
  return { providers, defaultProvider: c.STEWARD_LLM_DEFAULT_PROVIDER };
}
