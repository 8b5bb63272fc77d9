/**
 * Configuration parsing every Steward process shares: the environment is parsed once against a zod schema,
 * frozen and passed down (STYLE.md habit 5). The schemas themselves live with their process
 * (cmd/config/env.ts, cmd/config/operator-env.ts); the value kinds environment variables use are here.
 */
import { z } from 'zod';

/** A TCP port (0: any free port). */
export const port = z.coerce.number().int().min(0).max(65535);
/** `true|false|1|0|yes|no`. */
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/** A comma-separated list; blanks dropped. */
export const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Log settings of every process. */
export const logSettings = {
  /** @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** 'pretty': coloured one-line logs for people; 'json': one JSON object a line. @default pretty on a terminal, else json */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
};

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; the result is frozen and passed down. No other module reads process.env. */
export function parseConfig<S extends z.ZodTypeAny>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  // NB: an empty variable means "unset", as shells and Helm templates often leave them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => ({ variable: String(i.path[0] ?? '?'), message: i.message })));
  }
  return Object.freeze(result.data);
}
