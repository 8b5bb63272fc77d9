/**
 * The runtimes' settings: typed, camelCase, units in the names. The environment's `STEWARD_*` names live at the
 * edge only: `cmd/config/` parses the environment once and hands each main one of the process settings below
 * (STYLE.md habit 5). Tests build them the same way, from an environment-shaped record.
 */
import type { DecisionLimits } from '../rego/decision.js';
import type { TracingSettings } from './tracing/setup.js';
import type { OAuthSettings } from './auth/oauth.js';
import type { ConnectionSettings } from './http/app.js';
import type { ProviderConfigInput } from './llm/config.js';
import type { WebhookSettings } from './orchestrator/webhooks/index.js';
import type { ModelPrice } from './budgets/prices.js';

/** A port to listen on and the setting that names it: a start-up error says which setting to change. */
export interface Listener {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** The environment variable of the port, e.g. `STEWARD_GATEWAY_PORT`. */
  setting: string;
}

/** The optional metrics listener: the process's registry for scrapers. */
export interface MetricsListener extends Listener {
  /** Bearer token scrapers send; absent: unauthenticated. */
  token?: string;
}

export interface ProcessSettings {
  log: { level: string; format?: 'json' | 'pretty' };
  /** Time allowed to drain on SIGTERM before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** OpenTelemetry export (runtime/tracing); absent: off. */
  tracing?: TracingSettings;
}

/** What every HTTP server of a process shares. */
export interface HttpSettings {
  bodyLimitBytes: number;
  connections: ConnectionSettings;
  /** Serve GET /openapi.json and GET /docs. */
  apiDocs: boolean;
  /** Serve the governance console at /console (the gateway's; docs/console.md). */
  console: boolean;
}

/** PostgreSQL at `databaseUrl`, else embedded PGlite in `dataDir`. */
export interface StoreSettings {
  databaseUrl?: string;
  dataDir: string;
}

/** The manifest folders (folder mode) and the built-in policy pack (every mode). */
export interface ManifestSettings {
  /** The user's folders; each must exist. */
  folders: readonly string[];
  builtinPolicyPack: boolean;
  /** Where API writes go in folder mode. @default the first folder */
  writeDir?: string;
  watch: boolean;
}

/** Where declarative state comes from, and who this process is in a cluster. */
export interface ClusterSettings {
  source: 'folder' | 'kubernetes';
  /** Absent: the pod's service account. */
  kubeconfig?: string;
  namespace: string;
  podName?: string;
  orchestratorName?: string;
  /** The folder a pod's mount paths are under (the test cluster's kubelet). */
  podRoot?: string;
  statusMinIntervalMs: number;
}

/** The LLM providers the environment configures, in order; the first is the default unless one is named. */
export interface LlmSettings {
  providers: readonly ProviderConfigInput[];
  defaultProvider?: string;
}

/** Credentials and the organization limits. */
export interface AccessSettings {
  communityMode: boolean | 'auto';
  licenseSigningSecret?: string;
  legacyCredentialsSunset: Date;
  /** The operator's token for process-wide endpoints (the metrics token). */
  operatorToken?: string;
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
  llmTokensPerMinute: number;
  /** Shared counters; absent: in memory. */
  redisUrl?: string;
}

/** How governed calls are recorded. */
export interface RecordSettings {
  contextTtlMs: number;
  llmAudit: 'commit' | 'background';
  auditRawText: boolean;
  /** How long a parked tool call waits for approval, and an approval for its call. */
  approvalTtlMs: number;
}

/** Budgets (runtime/budgets): the prices calls are charged at, and how long a reservation holds. */
export interface BudgetSettings {
  /** Overrides and additions to the built-in prices, keys `provider/model`, `model` or `provider/*`. */
  modelPrices?: Record<string, ModelPrice>;
  /** The price of a model with none; absent: such a model is charged in tokens only. */
  defaultModelPrice?: ModelPrice;
  /** How long a call's reservation holds when it never settles (its replica died); then it is charged in full. */
  reservationTtlMs: number;
}

/** The audit log's evidence (runtime/audit/evidence.ts). */
export interface EvidenceSettings {
  /** The Ed25519 key that signs checkpoints; absent: rows are chained, nothing is signed. */
  signingKeyFile?: string;
  /** Generate the key at `signingKeyFile` when it does not exist (standalone's own default key). */
  generateKey: boolean;
  checkpointRows: number;
  checkpointMs: number;
  witnessFile?: string;
  witnessUrl?: string;
  retentionDays?: number;
}

/** A2A on the gateway (runtime/a2a). */
export interface A2aSettings {
  enabled: boolean;
  /** The gateway's public origin, without a trailing slash, which the cards name; absent: its listener's, on loopback. */
  publicUrl?: string;
  /** The key that signs the cards; absent: unsigned cards. */
  signingKeyFile?: string;
  /** Generate the key at `signingKeyFile` when it does not exist (standalone's own default key). */
  generateKey: boolean;
  /** STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: push notification configs may name private and loopback hosts. */
  allowPrivatePushTargets: boolean;
}

/** Policy evaluation. */
export interface PolicySettings {
  /** UTF-8 bytes of text one evaluation accepts. */
  inputMaxBytes: number;
  /** Inputs with more text are evaluated on an isolation worker. */
  inlineMaxBytes: number;
  /** The default limits of one decision; a Policy's `spec.limits` overrides them for that Policy. */
  limits: Required<DecisionLimits>;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** The plan and parallel surfaces. */
export interface OrchestrationSettings {
  planTimeoutMs: number;
  planner: 'auto' | 'deterministic';
  minHealthyAgents: number;
  webhooks: WebhookSettings;
}

/** What the gateway half needs: standalone and the gateway process. */
export interface GatewayCoreSettings {
  http: HttpSettings;
  access: AccessSettings;
  records: RecordSettings;
  budgets: BudgetSettings;
  evidence: EvidenceSettings;
  a2a: A2aSettings;
  policy: PolicySettings;
  llm: LlmSettings;
  /** The tag in minted API keys. */
  environmentName: string;
  /** OAuth access tokens on /mcp (runtime/auth/oauth.ts); absent: license and API keys only. */
  mcpOAuth?: OAuthSettings;
  /** STEWARD_MCP_NEW_TOOLS: tools an `mcp` upstream adds after its list was pinned are held, or pinned on sight. */
  mcpNewTools: 'hold' | 'pin';
}

export interface StandaloneSettings extends ProcessSettings, GatewayCoreSettings {
  store: StoreSettings;
  manifests: ManifestSettings;
  orchestration: OrchestrationSettings;
  /** The orchestrator port's certificate; absent: plain HTTP/1.1. */
  tls?: TlsFiles;
  gatewayListener: Listener;
  orchestratorListener: Listener;
  metrics?: MetricsListener;
}

export interface GatewaySettings extends ProcessSettings, GatewayCoreSettings {
  store: StoreSettings;
  manifests: ManifestSettings;
  cluster: ClusterSettings;
  listener: Listener;
  metrics?: MetricsListener;
  /** Where `/api/request` plans go, with the secret that signs the forwarded identity. */
  orchestrator?: { url: string; internalSecret: string };
  /** Accept identities forwarded by orchestrators holding this secret (connector steps). */
  internalSecret?: string;
}

export interface OrchestratorProcessSettings extends ProcessSettings {
  http: HttpSettings;
  store: StoreSettings;
  manifests: ManifestSettings;
  cluster: ClusterSettings;
  access: AccessSettings;
  records: RecordSettings;
  budgets: BudgetSettings;
  /** Plans' policy checks: the limits only (their inputs are bounded by the body limit). */
  policy: Pick<PolicySettings, 'limits'>;
  llm: LlmSettings;
  orchestration: OrchestrationSettings;
  tls?: TlsFiles;
  listener: Listener;
  metrics?: MetricsListener;
  agents: {
    discovery: 'static' | 'kubernetes';
    /** Remote agents' origins (static discovery); absent: in-process agents. */
    endpoints?: readonly string[];
    probeIntervalMs: number;
    token?: string;
    /** PEM authorities of the agents' certificates; absent: the system's. */
    caFile?: string;
  };
  internalSecret?: string;
  /** The gateway that runs plans' connector steps, called with identities signed by `internalSecret`. */
  gateway?: { url: string; internalSecret: string };
}

export interface AgentSettings extends ProcessSettings {
  http: HttpSettings;
  manifests: ManifestSettings;
  cluster: ClusterSettings;
  llm: LlmSettings;
  tls?: TlsFiles;
  listener: Listener;
  agent: {
    /** The AgentConfig served. */
    name: string;
    namespace: string;
    /** @default `<name>-<host name>-<pid>` */
    id?: string;
    maxInFlight: number;
    policyCacheEntries: number;
    policyDeadlineMs: number;
    /** Bearer token callers send; absent only on a loopback address. */
    token?: string;
  };
}
