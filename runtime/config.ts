import { z } from 'zod';
// NB: the constants module only: the CLI parses the configuration before loading anything heavy.
import { DEFAULT_GATEWAY_PORT, DEFAULT_ORCHESTRATOR_PORT } from '../api/constants.js';
import { endpointProblem, splitEndpoints } from './orchestrator/pool/endpoints.js';
import { bool, list, logSettings, port } from '../platform/config.js';

/** Settings every Steward process shares. Units are in the names. */
const base = {
  ...logSettings,
  /** PostgreSQL URL; absent: embedded PGlite in STEWARD_DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /** @default ./.data */
  STEWARD_DATA_DIR: z.string().default('.data'),
  /** Redis URL for shared rate-limit counters; absent: in-memory. */
  REDIS_URL: z.string().url().optional(),
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
const llm = {
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  STEWARD_OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  STEWARD_ANTHROPIC_MODEL: z.string().min(1).default('claude-3-5-haiku-latest'),
  /** Bedrock is enabled by a region; credentials come from the AWS default chain. */
  STEWARD_BEDROCK_REGION: z.string().optional(),
  STEWARD_BEDROCK_MODEL: z.string().min(1).default('anthropic.claude-3-5-haiku-20241022-v1:0'),
  STEWARD_BEDROCK_ENDPOINT: z.string().url().optional(),
  OLLAMA_HOST: z.string().url().optional(),
  STEWARD_OLLAMA_MODEL: z.string().min(1).default('llama3.1:8b'),
  /** A development stand-in that answers from the prompt and says so; never on by default. */
  STEWARD_LLM_ECHO: bool.default(false),
  STEWARD_LLM_DEFAULT_PROVIDER: z.string().optional(),
  /** Deadline of one provider call. @default 30s */
  STEWARD_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
};

/** Credentials and the organization rate limits: the gateway's and the orchestrator's (shared through Redis). */
const access = {
  /** HMAC secret that signs and verifies license keys (a Secret in a cluster). */
  STEWARD_LICENSE_SIGNING_SECRET: z.string().min(16, 'use at least 16 characters').optional(),
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
const tls = {
  /** PEM certificate (chain) */
  STEWARD_TLS_CERT_FILE: z.string().min(1).optional(),
  /** PEM private key */
  STEWARD_TLS_KEY_FILE: z.string().min(1).optional(),
};

/**
 * Where the runtimes read declarative state, and who they are in a cluster (docs/cluster-mode.md): the
 * operator sets these in the gateway, orchestrator and agent pods.
 */
const cluster = {
  /** 'folder': STEWARD_MANIFESTS; 'kubernetes': the API server's resources in STEWARD_NAMESPACE. @default folder */
  STEWARD_SOURCE: z.enum(['folder', 'kubernetes']).default('folder'),
  /** Kubeconfig file for STEWARD_SOURCE=kubernetes; absent: the pod's service account. */
  STEWARD_KUBECONFIG: z.string().min(1).optional(),
  /** Namespace whose resources the runtime reads (the pod's own). @default default */
  STEWARD_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace name')
    .default('default'),
  /** This pod's name (status entries, leases). @default the host name */
  STEWARD_POD_NAME: z.string().min(1).max(253).optional(),
  /** The Orchestrator resource this pod belongs to (status it reports, leases it takes). */
  STEWARD_ORCHESTRATOR_NAME: z
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
const parallel = {
  /**
   * Healthy pool agents needed to take a parallel request: with fewer (but some), 503 INSUFFICIENT_AGENTS; with
   * none, 503 ORCHESTRATOR_UNAVAILABLE. @default 1
   */
  STEWARD_PARALLEL_MIN_HEALTHY_AGENTS: z.coerce.number().int().min(1).max(10_000).default(1),
};

/** Webhook delivery of plan events (standalone and the orchestrator process; docs/orchestrator-registry.md). */
const webhooks = {
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
const plan = {
  /** The whole plan's budget, planning included; then 408 PLANNING_TIMEOUT. Below the clients' 120 s. @default 110s */
  STEWARD_PLAN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(110_000),
  /** 'auto': the LLM planner when a provider is configured (deterministic otherwise); 'deterministic': always. @default auto */
  STEWARD_PLANNER: z.enum(['auto', 'deterministic']).default('auto'),
};

/**
 * The secret gateways and orchestrators share to pass a caller's verified identity (X-Steward-Identity, an
 * HMAC-SHA256 over it); standalone makes one per process.
 */
const internalSecret = z.string().min(32, 'use at least 32 characters').optional();

/** How the governed pipeline records calls (runtime/governed/): the gateway's and the orchestrator's. */
const records = {
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
};

/** Gateway settings (standalone and the gateway process). */
const gateway = {
  ...access,
  ...records,
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

/** Both TLS files or neither. */
function checkTlsPair(
  c: { STEWARD_TLS_CERT_FILE?: string; STEWARD_TLS_KEY_FILE?: string },
  ctx: z.RefinementCtx,
): void {
  if ((c.STEWARD_TLS_CERT_FILE === undefined) !== (c.STEWARD_TLS_KEY_FILE === undefined)) {
    const missing = c.STEWARD_TLS_CERT_FILE === undefined ? 'STEWARD_TLS_CERT_FILE' : 'STEWARD_TLS_KEY_FILE';
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: 'set STEWARD_TLS_CERT_FILE and STEWARD_TLS_KEY_FILE together (or neither, for plain HTTP/1.1)',
    });
  }
}

const communityMode = (fallback: 'auto' | 'true' | 'false') =>
  z
    .enum(['auto', 'true', 'false'])
    .default(fallback)
    .transform((v) => (v === 'auto' ? ('auto' as const) : v === 'true'));

export const standaloneConfigSchema = z
  .object({
    ...base,
    ...gateway,
    ...parallel,
    ...plan,
    ...webhooks,
    /** The orchestrator port's certificate (the gateway port stays plain HTTP/1.1 behind its ingress). */
    ...tls,
    /** 'auto': no credentials needed while no License is configured. @default auto */
    STEWARD_COMMUNITY_MODE: communityMode('auto'),
    /** Standalone binds loopback by default: community mode needs no credentials. */
    STEWARD_HOST: z.string().default('127.0.0.1'),
    STEWARD_GATEWAY_PORT: port.default(DEFAULT_GATEWAY_PORT),
    STEWARD_ORCHESTRATOR_PORT: port.default(DEFAULT_ORCHESTRATOR_PORT),
  })
  .superRefine((c, ctx) => {
    // Port 0 picks a free port for each listener, so only equal fixed ports collide.
    if (c.STEWARD_GATEWAY_PORT !== 0 && c.STEWARD_GATEWAY_PORT === c.STEWARD_ORCHESTRATOR_PORT) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_ORCHESTRATOR_PORT'],
        message: `equals STEWARD_GATEWAY_PORT (${c.STEWARD_GATEWAY_PORT}); give the gateway and the orchestrator different ports`,
      });
    }
    checkTlsPair(c, ctx);
  });

export const gatewayConfigSchema = z
  .object({
    ...base,
    ...gateway,
    ...cluster,
    /** A cluster install is never in community mode unless configured so. @default false */
    STEWARD_COMMUNITY_MODE: communityMode('false'),
    STEWARD_HOST: z.string().default('0.0.0.0'),
    STEWARD_GATEWAY_PORT: port.default(DEFAULT_GATEWAY_PORT),
    /** The orchestrator that serves `/api/request` plans (e.g. http://steward-orchestrator:8081); absent: plans answer 503. */
    STEWARD_ORCHESTRATOR_URL: z.string().url().optional(),
    /** Signs the caller's identity forwarded to the orchestrator; required with STEWARD_ORCHESTRATOR_URL. */
    STEWARD_INTERNAL_SECRET: internalSecret,
  })
  .superRefine((c, ctx) => {
    if (c.STEWARD_ORCHESTRATOR_URL !== undefined && c.STEWARD_INTERNAL_SECRET === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_INTERNAL_SECRET'],
        message: 'required with STEWARD_ORCHESTRATOR_URL: the orchestrator verifies forwarded identities with it',
      });
    }
  });

export const orchestratorConfigSchema = z
  .object({
    ...base,
    ...access,
    ...llm,
    ...tls,
    ...parallel,
    ...cluster,
    /**
     * 'static': STEWARD_AGENT_ENDPOINTS (or in-process agents without it); 'kubernetes': the EndpointSlices of
     * the agent Services of the AgentConfigs the Orchestrator selects. @default static
     */
    STEWARD_AGENT_DISCOVERY: z.enum(['static', 'kubernetes']).default('static'),
    ...webhooks,
    ...plan,
    ...records,
    /** Accept identities forwarded by gateways holding the same secret (X-Steward-Identity). */
    STEWARD_INTERNAL_SECRET: internalSecret,
    /**
     * The gateway Service that runs plans' connector-call steps (e.g. http://steward-gateway:8080), called with the
     * caller's identity signed by STEWARD_INTERNAL_SECRET; absent: those steps fail with SERVICE_UNAVAILABLE.
     */
    STEWARD_GATEWAY_URL: z.string().url().optional(),
    /** A cluster install is never in community mode unless configured so. @default false */
    STEWARD_COMMUNITY_MODE: communityMode('false'),
    STEWARD_HOST: z.string().default('0.0.0.0'),
    /** The reference names PORT for the orchestrator. */
    PORT: port.default(DEFAULT_ORCHESTRATOR_PORT),
    /**
     * Pool agents reached over HTTP, comma-separated origins: `http://h:p,https://h:p` (https: HTTP/2 with TLS 1.3).
     * Absent: in-process agents for the AgentConfigs of STEWARD_MANIFESTS (the operator issue adds the cluster's).
     */
    STEWARD_AGENT_ENDPOINTS: z
      .string()
      .transform((v, ctx) => {
        const endpoints = splitEndpoints(v);
        for (const e of endpoints) {
          const problem = endpointProblem(e);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }
        return endpoints;
      })
      .optional(),
    /** Interval of the pool's active probes of remote agents (GET /readyz). @default 5s */
    STEWARD_AGENT_PROBE_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** The agents' shared token, sent as `Authorization: Bearer …` to remote agents. */
    STEWARD_AGENT_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
    /** PEM certificate authorities of the remote agents' certificates; absent: the system's. */
    STEWARD_AGENT_CA_FILE: z.string().min(1).optional(),
  })
  .superRefine((c, ctx) => {
    checkTlsPair(c, ctx);
    if (c.STEWARD_GATEWAY_URL !== undefined && c.STEWARD_INTERNAL_SECRET === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_INTERNAL_SECRET'],
        message: 'required with STEWARD_GATEWAY_URL: the gateway verifies forwarded identities with it',
      });
    }
    if (c.STEWARD_AGENT_DISCOVERY !== 'kubernetes') return;
    if (c.STEWARD_ORCHESTRATOR_NAME === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_ORCHESTRATOR_NAME'],
        message: 'required with STEWARD_AGENT_DISCOVERY=kubernetes: its spec.agentPool.selector picks the pool agents',
      });
    }
    if (c.STEWARD_AGENT_ENDPOINTS !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_AGENT_ENDPOINTS'],
        message:
          'set either STEWARD_AGENT_ENDPOINTS (STEWARD_AGENT_DISCOVERY=static) or STEWARD_AGENT_DISCOVERY=kubernetes, not both',
      });
    }
  });

/** The webhook settings of a parsed configuration. */
export function webhookSettings(c: z.infer<z.ZodObject<typeof webhooks>>) {
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

export type StandaloneConfig = Readonly<z.infer<typeof standaloneConfigSchema>>;
export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;
export type OrchestratorConfig = Readonly<z.infer<typeof orchestratorConfigSchema>>;

/** The pool agent's port. NB: belongs in api/constants.ts once the operator's Deployment needs it. */
export const DEFAULT_AGENT_PORT = 8090;

/** A pool agent (`steward agent`): serves one AgentConfig's work items over HTTP. */
export const agentConfigSchema = z
  .object({
    ...base,
    ...llm,
    ...cluster,
    STEWARD_HOST: z.string().default('0.0.0.0'),
    /** @default 8090 */
    STEWARD_AGENT_PORT: port.default(DEFAULT_AGENT_PORT),
    /** The AgentConfig this agent serves (its `spec.llm` and `description`), read from STEWARD_MANIFESTS or the cluster (STEWARD_SOURCE). */
    STEWARD_AGENT_NAME: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'must be an AgentConfig name such as travel-agent'),
    /** The AgentConfig's namespace. @default STEWARD_NAMESPACE */
    STEWARD_AGENT_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace name')
      .optional(),
    /** The id reported in results and stats. @default `<STEWARD_AGENT_NAME>-<host name>-<pid>` (a pod's host name is its name) */
    STEWARD_AGENT_ID: z.string().min(1).max(253).optional(),
    /** Work items run at once; one more is answered 429 AGENT_BUSY (never queued). @default 1 */
    STEWARD_AGENT_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1024).default(1),
    /** Distinct policy texts kept compiled (least recently used leave first). @default 256 */
    STEWARD_AGENT_POLICY_CACHE_ENTRIES: z.coerce.number().int().min(1).max(65_536).default(256),
    /** Upper bound of one policy evaluation; the item's timeoutMs bounds it too. @default 100 ms */
    STEWARD_AGENT_POLICY_DEADLINE_MS: z.coerce.number().int().min(1).max(60_000).default(100),
    ...tls,
    /**
     * The shared secret callers send as `Authorization: Bearer …` on /v1/work and /v1/stats. Required unless
     * STEWARD_HOST is a loopback address: the agent runs LLM calls for whoever reaches it.
     */
    STEWARD_AGENT_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  })
  .superRefine((c, ctx) => {
    if (c.STEWARD_AGENT_TOKEN === undefined && !isLoopbackHost(c.STEWARD_HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['STEWARD_AGENT_TOKEN'],
        message: `required when STEWARD_HOST (${c.STEWARD_HOST}) is not a loopback address: set a shared secret of 16+ characters, or STEWARD_HOST=127.0.0.1`,
      });
    }
    checkTlsPair(c, ctx);
  });

/** Whether a listen address is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export type AgentRuntimeConfig = Readonly<z.infer<typeof agentConfigSchema>>;
/** The LLM provider settings of any process that calls providers (gateway, standalone, agent). */
export type LlmSettings = Readonly<z.infer<z.ZodObject<typeof llm>>>;
export type BaseConfig = Readonly<z.infer<z.ZodObject<typeof base>>>;
