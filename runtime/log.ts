import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Every path that may hold a secret, redacted in one place. Request headers as fastify logs them, config
 * fields, and the names our own code uses for secrets.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-license-key"]',
  'req.headers["x-client-secret"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-license-key"]',
  'headers["x-client-secret"]',
  'config.DATABASE_URL',
  'config.REDIS_URL',
  'databaseUrl',
  'redisUrl',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.secret',
  '*.licenseKey',
  '*.token',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'licenseKey',
];

export function createLogger(options: { level: string; name?: string }, destination?: pino.DestinationStream): Logger {
  const opts: LoggerOptions = {
    level: options.level,
    name: options.name ?? 'steward',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(opts, destination) : pino(opts);
}

export type { Logger };
