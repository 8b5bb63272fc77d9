import { z } from 'zod';
import { DEFAULT_GATEWAY_PORT, DEFAULT_ORCHESTRATOR_PORT } from '../api/index.js';

const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const list = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/** Settings every Steward process shares. Units are in the names. */
const base = {
  /** @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** PostgreSQL URL; absent: embedded PGlite in STEWARD_DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /** @default ./.data */
  STEWARD_DATA_DIR: z.string().default('.data'),
  /** Redis URL for shared rate-limit counters; absent: in-memory. */
  REDIS_URL: z.string().url().optional(),
  /** Largest accepted request body. @default 1 MiB */
  STEWARD_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /** Time allowed to drain on SIGTERM before the process exits anyway. @default 10s */
  STEWARD_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Folders of YAML manifests (AgentConfig, Policy, Connector, License, Orchestrator). */
  STEWARD_MANIFESTS: list.default(['config/samples', 'config/policies']),
  /** Where API writes (e.g. POST /api/v1/policies) are stored in folder mode; default: the first manifest folder. */
  STEWARD_MANIFESTS_WRITE_DIR: z.string().optional(),
  /** Watch the manifest folders for changes. @default true */
  STEWARD_WATCH_MANIFESTS: bool.default(true),
};

export const standaloneConfigSchema = z.object({
  ...base,
  /** Standalone binds loopback by default: community mode needs no credentials. */
  STEWARD_HOST: z.string().default('127.0.0.1'),
  STEWARD_GATEWAY_PORT: port.default(DEFAULT_GATEWAY_PORT),
  STEWARD_ORCHESTRATOR_PORT: port.default(DEFAULT_ORCHESTRATOR_PORT),
});

export const gatewayConfigSchema = z.object({
  ...base,
  STEWARD_HOST: z.string().default('0.0.0.0'),
  STEWARD_GATEWAY_PORT: port.default(DEFAULT_GATEWAY_PORT),
});

export const orchestratorConfigSchema = z.object({
  ...base,
  STEWARD_HOST: z.string().default('0.0.0.0'),
  /** The reference names PORT for the orchestrator. */
  PORT: port.default(DEFAULT_ORCHESTRATOR_PORT),
});

export type StandaloneConfig = Readonly<z.infer<typeof standaloneConfigSchema>>;
export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;
export type OrchestratorConfig = Readonly<z.infer<typeof orchestratorConfigSchema>>;
export type BaseConfig = Readonly<z.infer<z.ZodObject<typeof base>>>;

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; the result is frozen and passed down. No other module reads process.env. */
export function parseConfig<S extends z.ZodTypeAny>(schema: S, env: Record<string, string | undefined>): Readonly<z.infer<S>> {
  // NB: an empty variable means "unset", as shells and Helm templates often leave them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => ({ variable: String(i.path[0] ?? '?'), message: i.message })));
  }
  return Object.freeze(result.data);
}
