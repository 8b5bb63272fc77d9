/**
 * The groups of environment variables the runtimes' schemas (env.ts) are made of, one group per concern. Units are
 * in the names; `settings.ts` maps each group to its typed settings.
 */
import { z } from 'zod';
import { LLM_ENV, POD_ENV } from '../../api/pod-env.js';
import { DEFAULT_DECISION_LIMITS } from '../../rego/decision.js';
import { bool, list, logSettings, port } from '../../platform/config.js';
import { parseDefaultPrice, parseModelPrices } from '../../runtime/budgets/prices.js';

/**
 * OpenTelemetry (docs/tracing.md): the standard variables Steward reads. Export is off unless an endpoint (or
 * `OTEL_TRACES_EXPORTER=otlp`) is set. The exporters also read `OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT` and
 * `_COMPRESSION` (and their per-signal forms), and the resource `OTEL_RESOURCE_ATTRIBUTES`, from the process.
 */
export const telemetry = {
  /** `true` turns the SDK off whatever else is set. @default false */
  OTEL_SDK_DISABLED: bool.default(false),
  /** Base OTLP/HTTP URL of a collector; traces go to `…/v1/traces`, metrics to `…/v1/metrics`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The traces URL, used as it is (over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** The metrics URL, used as it is (over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.string().url().optional(),
  /** `otlp` (http://localhost:4318 when no endpoint is set) or `none`. @default otlp when an endpoint is set */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  /** `otlp` or `none`. @default otlp when an endpoint is set */
  OTEL_METRICS_EXPORTER: z.enum(['otlp', 'none']).optional(),
  /** The service name; absent: steward-gateway, steward-orchestrator, steward-agent, or steward (standalone). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** @default parentbased_always_on */
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  /** The ratio of the traceidratio samplers, 0 to 1. @default 1 */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** Longest wait before finished spans are sent, in ms. @default 5000 */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600_000).default(5000),
  /** Interval between two metric exports, in ms. @default 60000 */
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Put prompts and answers into the spans, masked by every detector even then. @default false */
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: bool.default(false),
};

/** Settings every Steward process shares. Units are in the names. */
export const base = {
  ...logSettings,
  ...telemetry,
  /** PostgreSQL URL; absent: embedded PGlite in STEWARD_DATA_DIR. */
  [POD_ENV.databaseUrl]: z.string().url().optional(),
  /** @default ./.data */
  STEWARD_DATA_DIR: z.string().default('.data'),
  /** Redis URL for shared rate-limit counters; absent: in-memory. */
  [POD_ENV.redisUrl]: z.string().url().optional(),
  /** Largest accepted request body. @default 1 MiB */
  STEWARD_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** Time allowed to drain on SIGTERM before the process exits anyway. @default 10s */
  STEWARD_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Time a client has to send the request line and headers; then 408 REQUEST_TIMEOUT and the socket closes. @default 10s */
  STEWARD_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /**
   * Time a client has to send the whole request (headers and body). Waiting for the answer is not counted: a plan
   * may take 120 s after its body arrived. @default 30s
   */
  STEWARD_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * An idle keep-alive connection is closed after this. Above the usual 60 s idle timeout of load balancers and
   * ingress controllers, so that they never reuse a connection we are closing (a 502). @default 72s
   */
  STEWARD_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
  /** A socket with no traffic either way is closed after this, answer pending or not; longer than a plan. @default 130s */
  STEWARD_SOCKET_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(130_000),
  /** Requests served on one keep-alive connection before it is closed (0: unlimited). @default 10000 */
  STEWARD_MAX_REQUESTS_PER_SOCKET: z.coerce.number().int().min(0).default(10_000),
  /** Concurrent connections per listening port; more are dropped as they arrive. @default 4096 */
  STEWARD_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /**
   * The user's folders of YAML manifests (AgentConfig, Policy, Connector, License, Orchestrator); each must exist.
   * The built-in policy pack is added by the runtime (STEWARD_BUILTIN_POLICY_PACK), not listed here.
   */
  STEWARD_MANIFESTS: list.default(['config/samples']),
  /** The built-in policy pack (config/policies) is loaded unless this says 'disabled'. @default enabled */
  STEWARD_BUILTIN_POLICY_PACK: z.enum(['enabled', 'disabled']).default('enabled'),
  /** Where API writes (e.g. POST /api/v1/policies) are stored in folder mode; default: the first manifest folder. */
  STEWARD_MANIFESTS_WRITE_DIR: z.string().optional(),
  /** Watch the manifest folders for changes. @default true */
  STEWARD_WATCH_MANIFESTS: bool.default(true),
  /** Serve the OpenAPI document at GET /openapi.json and the API reference page at GET /docs. @default true */
  STEWARD_API_DOCS: bool.default(true),
  /** Serve the governance console at /console on the gateway (docs/console.md). @default true */
  STEWARD_CONSOLE: bool.default(true),
  /**
   * A separate listener (on STEWARD_HOST) serving only GET /metrics/prometheus, for scrapers: unauthenticated
   * unless STEWARD_METRICS_TOKEN is set. Absent: no metrics listener.
   */
  STEWARD_METRICS_PORT: port.optional(),
  /**
   * The operator's bearer token for GET /metrics/prometheus (process-wide figures, every organization's). Absent:
   * on the gateway and orchestrator ports only community mode serves it; the metrics port needs no token.
   */
  STEWARD_METRICS_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
};

/** LLM providers from the environment (a cluster adds the Orchestrator document's providers): gateway and agents. */
export const llm = {
  [LLM_ENV.openai.key]: z.string().min(1).optional(),
  [LLM_ENV.openai.endpoint]: z.string().url().optional(),
  [LLM_ENV.openai.model]: z.string().min(1).default('gpt-4o-mini'),
  [LLM_ENV.anthropic.key]: z.string().min(1).optional(),
  [LLM_ENV.anthropic.endpoint]: z.string().url().optional(),
  [LLM_ENV.anthropic.model]: z.string().min(1).default('claude-3-5-haiku-latest'),
  /** Bedrock is enabled by a region; credentials come from the AWS default chain. */
  [LLM_ENV['aws-bedrock'].region]: z.string().optional(),
  [LLM_ENV['aws-bedrock'].model]: z.string().min(1).default('anthropic.claude-3-5-haiku-20241022-v1:0'),
  [LLM_ENV['aws-bedrock'].endpoint]: z.string().url().optional(),
  [LLM_ENV.ollama.endpoint]: z.string().url().optional(),
  [LLM_ENV.ollama.model]: z.string().min(1).default('llama3.1:8b'),
  /** A development stand-in that answers from the prompt and says so; never on by default. */
  STEWARD_LLM_ECHO: bool.default(false),
  [POD_ENV.llmDefaultProvider]: z.string().optional(),
  /** Deadline of one provider call. @default 30s */
  STEWARD_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
};

/** Credentials and the organization rate limits: the gateway's and the orchestrator's (shared through Redis). */
export const access = {
  /** HMAC secret that signs and verifies license keys (a Secret in a cluster). */
  [POD_ENV.licenseSigningSecret]: z.string().min(16, 'use at least 16 characters').optional(),
  /** After this instant X-Client-ID/X-Client-Secret are refused with 401. @default 2026-06-30T23:59:59Z */
  STEWARD_LEGACY_CREDENTIALS_SUNSET: z.coerce.date().default(new Date('2026-06-30T23:59:59Z')),
  /** Requests per organization per minute and per hour (gateway endpoints; a parallel request counts as one). */
  STEWARD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  STEWARD_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(10_000),
  /**
   * LLM tokens per organization per minute on the governed LLM routes. A call is charged when it is admitted, for
   * its worst case: the prompt's estimated tokens (characters / 4) plus its token budget (`max_tokens`, 500 when
   * absent), as Azure OpenAI counts its tokens-per-minute quota.
   */
  STEWARD_LLM_TOKENS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1_000_000),
};

/** A certificate: with both files, HTTP/2 over TLS 1.3 with HTTP/1.1 by ALPN; without, plain HTTP/1.1. */
export const tls = {
  /** PEM certificate (chain) */
  [POD_ENV.tlsCertFile]: z.string().min(1).optional(),
  /** PEM private key */
  [POD_ENV.tlsKeyFile]: z.string().min(1).optional(),
};

/**
 * Where the runtimes read declarative state, and who they are in a cluster (docs/cluster-mode.md): the
 * operator sets these in the gateway, orchestrator and agent pods.
 */
export const cluster = {
  /** 'folder': STEWARD_MANIFESTS; 'kubernetes': the API server's resources in STEWARD_NAMESPACE. @default folder */
  [POD_ENV.source]: z.enum(['folder', 'kubernetes']).default('folder'),
  /** Kubeconfig file for STEWARD_SOURCE=kubernetes; absent: the pod's service account. */
  STEWARD_KUBECONFIG: z.string().min(1).optional(),
  /** Namespace whose resources the runtime reads (the pod's own). @default default */
  [POD_ENV.namespace]: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace name')
    .default('default'),
  /** This pod's name (status entries, leases). @default the host name */
  [POD_ENV.podName]: z.string().min(1).max(253).optional(),
  /** The Orchestrator resource this pod belongs to (status it reports, leases it takes). */
  [POD_ENV.orchestratorName]: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'must be an Orchestrator name')
    .optional(),
  /**
   * The folder a pod's mount paths are found under: set by the test cluster's kubelet, which runs pods as
   * processes without a root of their own (testing/kube/README.md). Absent: '/' as in a real pod.
   */
  STEWARD_POD_ROOT: z.string().min(1).optional(),
  /** Least time between two status writes of one object by this runtime. @default 2s */
  STEWARD_STATUS_MIN_INTERVAL_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
};

/** The parallel surface (standalone and the orchestrator process). */
export const parallel = {
  /**
   * Healthy pool agents needed to take a parallel request: with fewer (but some), 503 INSUFFICIENT_AGENTS; with
   * none, 503 ORCHESTRATOR_UNAVAILABLE. @default 1
   */
  STEWARD_PARALLEL_MIN_HEALTHY_AGENTS: z.coerce.number().int().min(1).max(10_000).default(1),
};

/** Webhook delivery of plan events (standalone and the orchestrator process; docs/orchestrator-registry.md). */
export const webhooks = {
  /** Lets webhook URLs (and the addresses their hosts resolve to) be private, loopback or link-local. @default false */
  STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** One delivery attempt's timeout, connection to last byte. @default 10 s */
  STEWARD_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Attempts per delivery, the first included, before it is marked failed. @default 10 */
  STEWARD_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(10),
  /** Delay before the second attempt; doubles per attempt (with jitter) up to 10 minutes. @default 2 s */
  STEWARD_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(600_000).default(2_000),
  /** Deliveries one process sends at once, all organizations together. @default 8 */
  STEWARD_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(8),
  /** Deliveries of one organization one process sends at once. @default 4 */
  STEWARD_WEBHOOK_PER_ORGANIZATION_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(4),
  /** Deliveries to one target (an organization's receiver origin) one process sends at once. @default 2 */
  STEWARD_WEBHOOK_PER_TARGET_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(2),
  /** Consecutive timeouts or connection failures of a target that open its circuit breaker. @default 5 */
  STEWARD_WEBHOOK_BREAKER_FAILURE_THRESHOLD: z.coerce.number().int().min(1).max(1_000).default(5),
  /** How long an open breaker holds a target's deliveries (recorded, not sent) before one probe. @default 60 s */
  STEWARD_WEBHOOK_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
};

/** The plan surface (standalone and the orchestrator process). */
export const plan = {
  /** The whole plan's budget, planning included; then 408 PLANNING_TIMEOUT. Below the clients' 120 s. @default 110s */
  STEWARD_PLAN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(110_000),
  /** 'auto': the LLM planner when a provider is configured (deterministic otherwise); 'deterministic': always. @default auto */
  STEWARD_PLANNER: z.enum(['auto', 'deterministic']).default('auto'),
};

/**
 * The secret gateways and orchestrators share to pass a caller's verified identity (X-Steward-Identity, an
 * HMAC-SHA256 over it); standalone makes one per process.
 */
export const internalSecret = z.string().min(32, 'use at least 32 characters').optional();

/** How the governed pipeline records calls (runtime/governed/): the gateway's and the orchestrator's. */
export const records = {
  /** Lifetime of a call's (or pre-check's) context row. @default 5 min */
  STEWARD_CONTEXT_TTL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  /**
   * When a governed call's context and audit entry are written (every model call: the gateway's routes, the
   * planner, plan steps, parallel queries): `commit` before the answer (an answer implies a durable entry), or
   * `background` behind it (lower latency; an entry can be lost if the process dies before the write, a failure is logged and
   * counted in steward_llm_audit_background_failures_total). @default commit
   */
  STEWARD_LLM_AUDIT: z.enum(['commit', 'background']).default('commit'),
  /**
   * Store prompts and answers in audit rows as they were sent. By default they are stored as the
   * policies left them: the kinds of the organization's redact policies are masked (`[REDACTED:us_ssn]`), and the
   * row's metadata counts what was masked. @default false
   */
  STEWARD_AUDIT_RAW_TEXT: bool.default(false),
  /**
   * How long a tool call parked for approval (a policy's `require_approval`) may wait to be approved, and an
   * approval to be used once given (docs/approvals.md). @default 1 hour
   */
  STEWARD_APPROVAL_TTL_SECONDS: z.coerce.number().int().min(10).max(604_800).default(3600),
};

/**
 * Budgets (docs/budgets.md): the prices calls are charged at (USD per million tokens) and how long a reservation
 * holds. The gateway's and the orchestrator's, which both charge the calls they make.
 */
export const budgets = {
  /**
   * Prices that override or add to the built-in table: a JSON object `{"openai/gpt-4o": {"input": 2.5, "output": 10,
   * "cachedInput": 1.25}}`, keys `provider/model`, `model` (any provider) or `provider/*`.
   */
  STEWARD_MODEL_PRICES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      try {
        return parseModelPrices(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** The price of a model found nowhere: `input,output[,cachedInput]`; absent: such a model is charged in tokens only. */
  STEWARD_DEFAULT_MODEL_PRICE: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      try {
        return parseDefaultPrice(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /**
   * How long a call's budget reservation holds when the call never settles (its process died): then it is charged in
   * full. Longer than any call lasts. @default 10 min
   */
  STEWARD_BUDGET_RESERVATION_TTL_MS: z.coerce.number().int().min(10_000).max(86_400_000).default(600_000),
};

/**
 * The default limits of one policy decision (the gateway's checks, the orchestrator's plan checks); a Policy's
 * `spec.limits` overrides them for that Policy. Past the deadline or the steps the decision fails closed.
 */
export const policyLimits = {
  /** @default 200 ms */
  STEWARD_POLICY_DEADLINE_MS: z.coerce.number().int().min(1).max(60_000).default(DEFAULT_DECISION_LIMITS.deadlineMs),
  /** Evaluation steps of one decision. @default 1,000,000 */
  STEWARD_POLICY_MAX_STEPS: z.coerce.number().int().min(1_000).max(1_000_000_000).default(DEFAULT_DECISION_LIMITS.maxSteps),
};

/**
 * The audit log's evidence (docs/audit-evidence.md): the Ed25519 key that signs the chains' checkpoints, how often,
 * the external witness, the retention. The gateway's (standalone's): it writes the checkpoints of every chain.
 */
export const evidence = {
  /**
   * PEM (PKCS#8) Ed25519 private key that signs audit checkpoints; its own key, apart from any other. Standalone:
   * generated in STEWARD_DATA_DIR on first start when unset. A gateway without it chains rows but signs nothing.
   */
  STEWARD_AUDIT_SIGNING_KEY_FILE: z.string().min(1).optional(),
  /** A checkpoint once a chain has this many rows past the last one… @default 1000 */
  STEWARD_AUDIT_CHECKPOINT_ROWS: z.coerce.number().int().min(1).max(10_000_000).default(1000),
  /** …or this many seconds have passed since it, whichever comes first. @default 60 */
  STEWARD_AUDIT_CHECKPOINT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** A file outside the database every checkpoint is appended to (JSON lines): an external witness. */
  STEWARD_AUDIT_WITNESS_FILE: z.string().min(1).optional(),
  /** A URL every checkpoint is POSTed to (JSON), 5 s deadline: an external witness. */
  STEWARD_AUDIT_WITNESS_URL: z.string().url().optional(),
  /** Audit rows older than this many days are deleted, by whole checkpointed segments; absent: kept. */
  STEWARD_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
};

/** A2A (docs/a2a.md): the agents' Agent Cards and JSON-RPC endpoints on the gateway. The gateway's (standalone's). */
export const a2a = {
  /** Serve A2A: each AgentConfig's Agent Card and its JSON-RPC endpoint. @default true */
  STEWARD_A2A: bool.default(true),
  /**
   * PEM (PKCS#8) EC P-256 or Ed25519 private key that signs the Agent Cards; its own key, not the audit signing key.
   * Standalone: generated in STEWARD_DATA_DIR on first start when unset. A gateway without it serves unsigned cards.
   */
  STEWARD_A2A_SIGNING_KEY_FILE: z.string().min(1).optional(),
  /**
   * The gateway's URL as A2A clients reach it (an ingress's, or the Service's), which the cards name. Absent: its
   * listener's address and port once it listens (127.0.0.1 for every interface), reachable from the same machine.
   */
  STEWARD_PUBLIC_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\/[^/]+\/?$/.test(u), 'must be an http(s) origin without a path, e.g. https://steward.example.com')
    .optional(),
};

/** The scope → tools map of OAuth tokens on /mcp: a JSON object of scope to served tool names (`*` globs). */
const scopeMap = z
  .string()
  .transform((text, ctx) => {
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
        const entries = Object.entries(v as Record<string, unknown>);
        if (entries.every(([, tools]) => Array.isArray(tools) && tools.every((t) => typeof t === 'string')))
          return Object.fromEntries(entries) as Record<string, string[]>;
      }
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'a JSON object of scope to tool names, e.g. {"orders:read": ["pg__query"]}' });
    return z.NEVER;
  });

/**
 * OAuth on Steward's MCP server (docs/connectors.md, "OAuth on /mcp"): access tokens of one authorization server,
 * besides license and API keys. Off unless STEWARD_MCP_OAUTH_ISSUER is set.
 */
export const mcpOAuth = {
  /** The authorization server's issuer identifier; set, /mcp takes its JWT access tokens. */
  STEWARD_MCP_OAUTH_ISSUER: z.string().url().optional(),
  /** Its JWKS; absent: the `jwks_uri` of its RFC 8414 (or OpenID) metadata. */
  STEWARD_MCP_OAUTH_JWKS_URL: z.string().url().optional(),
  /** Steward's resource identifier, the `/mcp` URL clients use: tokens must carry it as audience. Required with the issuer. */
  STEWARD_MCP_RESOURCE: z.string().url().optional(),
  /** The token claim that names the Steward organization. @default steward_organization */
  STEWARD_MCP_OAUTH_ORGANIZATION_CLAIM: z.string().min(1).default('steward_organization'),
  /** The organization of tokens without that claim; absent: they are refused. */
  STEWARD_MCP_OAUTH_ORGANIZATION: z.string().min(1).optional(),
  /** Scope → served tool names (JSON); a token reaches the tools its scopes map to, and no others. @default {} */
  STEWARD_MCP_OAUTH_SCOPES: scopeMap.optional(),
};

/** Gateway settings (standalone and the gateway process). */
export const gateway = {
  ...mcpOAuth,
  /**
   * What becomes of a tool an `mcp` connector's upstream adds after its list was pinned (docs/connectors.md, Pinned
   * tool definitions): `hold` keeps it hidden and uncallable until its list is approved; `pin` pins it on sight when
   * the prompt-injection detector passes its description. @default hold
   */
  STEWARD_MCP_NEW_TOOLS: z.enum(['hold', 'pin']).default('hold'),
  ...access,
  ...records,
  ...budgets,
  ...evidence,
  ...a2a,
  ...policyLimits,
  /**
   * Largest text a policy evaluation accepts: the query plus every other string of the policy input (context,
   * user, MCP and LLM fields), in UTF-8 bytes; more is answered 413 POLICY_INPUT_TOO_LARGE. @default 256 KiB
   */
  STEWARD_POLICY_INPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  /** Policy inputs with more text than this are evaluated on an isolation worker thread. @default 8 KiB */
  STEWARD_POLICY_INLINE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(64 * 1024 * 1024)
    .default(8 * 1024),
  /** Tag in minted API keys: client-{name}-{env}-…  @default prod */
  STEWARD_ENVIRONMENT: z
    .string()
    .regex(/^[a-z0-9]{1,16}$/)
    .default('prod'),
  ...llm,
};

