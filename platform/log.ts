import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';

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

export type LogFormat = 'json' | 'pretty';

export interface LoggerSettings {
  level: string;
  name?: string;
  /** 'pretty': coloured one-line logs for people; 'json': one object a line for machines. @default pretty when stdout is a terminal */
  format?: LogFormat;
}

/** The format for LOG_FORMAT (absent: pretty on a terminal, JSON into a pipe, a file or a collector). */
export function logFormat(setting: LogFormat | undefined, isTTY = process.stdout.isTTY === true): LogFormat {
  return setting ?? (isTTY ? 'pretty' : 'json');
}

export function createLogger(options: LoggerSettings, destination?: pino.DestinationStream): Logger {
  const opts: LoggerOptions = {
    level: options.level,
    name: options.name ?? 'steward',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.format === 'pretty') return pino(opts, prettyStream(destination));
  return destination ? pino(opts, destination) : pino(opts);
}

/**
 * pino-pretty as a synchronous stream in this thread (not a transport worker): a line is written before
 * `process.exit` can lose it. One line per entry: `07:59:05.123 INFO  (gateway/policies): policies compiled {…}`.
 */
function prettyStream(destination?: pino.DestinationStream): pino.DestinationStream {
  // NB: required when first asked for: a process that logs JSON (every pod) never loads it.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({
    colorize: destination === undefined ? process.stdout.isTTY === true : false,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // `component`/`module` lead the line; `try` (a command to paste) is printed as is, not JSON-escaped.
    ignore: 'pid,hostname,name,component,module,try',
    messageFormat: (entry, messageKey) => {
      const where = [entry.component, entry.module].filter((v) => typeof v === 'string').join('/');
      const message = String(entry[messageKey] ?? '');
      return `${where ? `[${where}] ` : ''}${message}${typeof entry.try === 'string' ? ` | try: ${entry.try}` : ''}`;
    },
    sync: true,
    ...(destination ? { destination: destination as unknown as NodeJS.WritableStream } : {}),
  });
}

export type { Logger };
