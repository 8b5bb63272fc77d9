/**
 * The environment contract between the operator and the runtime pods: the variables the operator sets on the
 * gateway, orchestrator and agent containers (operator/controllers/env.ts) and the runtimes' environment parser
 * reads (cmd/config/env.ts). Defined once, here; `cmd/config/pod-env.test.ts` checks that both sides agree.
 */

/** Every variable the operator sets, by meaning. */
export const POD_ENV = {
  /** `kubernetes`: the runtimes read the API server's resources. */
  source: 'STEWARD_SOURCE',
  /** The pod's namespace (downward API). */
  namespace: 'STEWARD_NAMESPACE',
  /** The pod's name (downward API). */
  podName: 'STEWARD_POD_NAME',
  orchestratorName: 'STEWARD_ORCHESTRATOR_NAME',
  logFormat: 'LOG_FORMAT',
  communityMode: 'STEWARD_COMMUNITY_MODE',
  /** The orchestrator Service, where the gateway forwards `/api/request` plans. */
  orchestratorUrl: 'STEWARD_ORCHESTRATOR_URL',
  /** The gateway Service, where the orchestrator sends plans' connector steps. */
  gatewayUrl: 'STEWARD_GATEWAY_URL',
  /** The gateway as clients reach it (the Ingress host, else the Service): what its A2A cards name. */
  publicUrl: 'STEWARD_PUBLIC_URL',
  /** `false` when the Orchestrator turns the gateway's console off. */
  console: 'STEWARD_CONSOLE',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'REDIS_URL',
  internalSecret: 'STEWARD_INTERNAL_SECRET',
  licenseSigningSecret: 'STEWARD_LICENSE_SIGNING_SECRET',
  gatewayPort: 'STEWARD_GATEWAY_PORT',
  /** The orchestrator's port: `PORT`, as the service reference names it. */
  orchestratorPort: 'PORT',
  agentDiscovery: 'STEWARD_AGENT_DISCOVERY',
  agentToken: 'STEWARD_AGENT_TOKEN',
  tlsCertFile: 'STEWARD_TLS_CERT_FILE',
  tlsKeyFile: 'STEWARD_TLS_KEY_FILE',
  agentName: 'STEWARD_AGENT_NAME',
  agentNamespace: 'STEWARD_AGENT_NAMESPACE',
  agentPort: 'STEWARD_AGENT_PORT',
  llmDefaultProvider: 'STEWARD_LLM_DEFAULT_PROVIDER',
  /** `spec.llm.prices` as JSON (docs/budgets.md). */
  modelPrices: 'STEWARD_MODEL_PRICES',
  /** `spec.llm.defaultPrice` as `input,output[,cachedInput]`. */
  defaultModelPrice: 'STEWARD_DEFAULT_MODEL_PRICE',
  /** The gateway's audit signing key, mounted from `O-internal` (docs/audit-evidence.md). */
  auditSigningKeyFile: 'STEWARD_AUDIT_SIGNING_KEY_FILE',
  /** The A2A card signing key, mounted from `O-internal` (docs/a2a.md). */
  a2aSigningKeyFile: 'STEWARD_A2A_SIGNING_KEY_FILE',
} as const;

/** The variables of one LLM provider type: its API key (from a Secret) and its plain settings. */
export const LLM_ENV = {
  openai: { key: 'OPENAI_API_KEY', endpoint: 'OPENAI_BASE_URL', model: 'STEWARD_OPENAI_MODEL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', endpoint: 'ANTHROPIC_BASE_URL', model: 'STEWARD_ANTHROPIC_MODEL' },
  'aws-bedrock': {
    region: 'STEWARD_BEDROCK_REGION',
    model: 'STEWARD_BEDROCK_MODEL',
    endpoint: 'STEWARD_BEDROCK_ENDPOINT',
  },
  ollama: { endpoint: 'OLLAMA_HOST', model: 'STEWARD_OLLAMA_MODEL' },
} as const satisfies Record<string, { key?: string; endpoint?: string; model: string; region?: string }>;

/** The contract's names, each once. */
export const POD_ENV_NAMES: readonly string[] = [
  ...Object.values(POD_ENV),
  ...Object.values(LLM_ENV).flatMap((vars) => Object.values(vars)),
];
