/**
 * The runtimes' environment: every `STEWARD_*` variable the gateway, orchestrator, agent and standalone processes
 * read, as zod schemas (the edge of STYLE.md habit 5; `settings.ts` turns a parsed environment into the typed
 * settings the mains take). The variables the operator sets on the pods are named by `api/pod-env.ts`.
 */
import { z } from 'zod';
// NB: light modules only: the CLI parses the configuration before loading anything heavy.
import { DEFAULT_AGENT_PORT, DEFAULT_GATEWAY_PORT, DEFAULT_ORCHESTRATOR_PORT } from '../../api/constants.js';
import { POD_ENV } from '../../api/pod-env.js';
import { DEFAULT_DECISION_LIMITS } from '../../rego/decision.js';
import { endpointProblem, splitEndpoints } from '../../runtime/orchestrator/pool/endpoints.js';
import { port } from '../../platform/config.js';
import {
  base,
  llm,
  access,
  tls,
  cluster,
  parallel,
  webhooks,
  plan,
  internalSecret,
  records,
  budgets,
  policyLimits,
  gateway,
} from './env-groups.js';

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
    [POD_ENV.communityMode]: communityMode('auto'),
    /** Standalone binds loopback by default: community mode needs no credentials. */
    STEWARD_HOST: z.string().default('127.0.0.1'),
    [POD_ENV.gatewayPort]: port.default(DEFAULT_GATEWAY_PORT),
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
    [POD_ENV.communityMode]: communityMode('false'),
    STEWARD_HOST: z.string().default('0.0.0.0'),
    [POD_ENV.gatewayPort]: port.default(DEFAULT_GATEWAY_PORT),
    /** The orchestrator that serves `/api/request` plans (e.g. http://steward-orchestrator:8081); absent: plans answer 503. */
    [POD_ENV.orchestratorUrl]: z.string().url().optional(),
    /** Signs the caller's identity forwarded to the orchestrator; required with STEWARD_ORCHESTRATOR_URL. */
    [POD_ENV.internalSecret]: internalSecret,
    /** A2A push notification configs may name private hosts (set it as the orchestrator's is; docs/a2a.md). */
    STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: webhooks.STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS,
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
    [POD_ENV.agentDiscovery]: z.enum(['static', 'kubernetes']).default('static'),
    ...webhooks,
    ...plan,
    ...records,
    ...budgets,
    ...policyLimits,
    /** Accept identities forwarded by gateways holding the same secret (X-Steward-Identity). */
    [POD_ENV.internalSecret]: internalSecret,
    /**
     * The gateway Service that runs plans' connector-call steps (e.g. http://steward-gateway:8080), called with the
     * caller's identity signed by STEWARD_INTERNAL_SECRET; absent: those steps fail with SERVICE_UNAVAILABLE.
     */
    [POD_ENV.gatewayUrl]: z.string().url().optional(),
    /** A cluster install is never in community mode unless configured so. @default false */
    [POD_ENV.communityMode]: communityMode('false'),
    STEWARD_HOST: z.string().default('0.0.0.0'),
    /** The reference names PORT for the orchestrator. */
    [POD_ENV.orchestratorPort]: port.default(DEFAULT_ORCHESTRATOR_PORT),
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
    [POD_ENV.agentToken]: z.string().min(16, 'use at least 16 characters').optional(),
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

export type StandaloneConfig = Readonly<z.infer<typeof standaloneConfigSchema>>;
export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;
export type OrchestratorConfig = Readonly<z.infer<typeof orchestratorConfigSchema>>;

/** A pool agent (`steward agent`): serves one AgentConfig's work items over HTTP. */
export const agentConfigSchema = z
  .object({
    ...base,
    ...llm,
    ...cluster,
    STEWARD_HOST: z.string().default('0.0.0.0'),
    /** @default 8090 */
    [POD_ENV.agentPort]: port.default(DEFAULT_AGENT_PORT),
    /** The AgentConfig this agent serves (its `spec.llm` and `description`), read from STEWARD_MANIFESTS or the cluster (STEWARD_SOURCE). */
    [POD_ENV.agentName]: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'must be an AgentConfig name such as travel-agent'),
    /** The AgentConfig's namespace. @default STEWARD_NAMESPACE */
    [POD_ENV.agentNamespace]: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace name')
      .optional(),
    /** The id reported in results and stats. @default `<STEWARD_AGENT_NAME>-<host name>-<pid>` (a pod's host name is its name) */
    STEWARD_AGENT_ID: z.string().min(1).max(253).optional(),
    /** Work items run at once; one more is answered 429 AGENT_BUSY (never queued). @default 1 */
    STEWARD_AGENT_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1024).default(1),
    /** Distinct policy texts kept compiled (least recently used leave first). @default 256 */
    STEWARD_AGENT_POLICY_CACHE_ENTRIES: z.coerce.number().int().min(1).max(65_536).default(256),
    /** Upper bound of one policy evaluation; the item's timeoutMs bounds it too. @default 200 ms, as STEWARD_POLICY_DEADLINE_MS */
    STEWARD_AGENT_POLICY_DEADLINE_MS: z.coerce
      .number()
      .int()
      .min(1)
      .max(60_000)
      .default(DEFAULT_DECISION_LIMITS.deadlineMs),
    ...tls,
    /**
     * The shared secret callers send as `Authorization: Bearer …` on /v1/work and /v1/stats. Required unless
     * STEWARD_HOST is a loopback address: the agent runs LLM calls for whoever reaches it.
     */
    [POD_ENV.agentToken]: z.string().min(16, 'use at least 16 characters').optional(),
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

export type AgentConfig = Readonly<z.infer<typeof agentConfigSchema>>;
export type BaseConfig = Readonly<z.infer<z.ZodObject<typeof base>>>;
export type LlmConfig = Readonly<z.infer<z.ZodObject<typeof llm>>>;
export type WebhookConfig = Readonly<z.infer<z.ZodObject<typeof webhooks>>>;
