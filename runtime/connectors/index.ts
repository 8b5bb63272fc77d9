export * from './errors.js';
export * from './options.js';
export * from './types.js';
export * from './registry.js';
export * from './status.js';
export { createConnector, parseOptions } from './factory.js';
export {
  connectionResolver,
  envResolver,
  type ConnectionResolver,
  type ResolverSources,
  type SecretReader,
} from './resolve.js';
export {
  guardSql,
  MAX_STATEMENT_CHARS,
  MAX_STATEMENT_TOKENS,
  type GuardedSql,
  type SqlGuardOptions,
  type SqlSummary,
  type SqlRefusal,
} from './sql/guard.js';
export { redactText, redactValue, type RedactionCounts } from '../redact/index.js';
export { addressPolicy } from './net/ssrf.js';
export { sanitizeMessage } from './sanitize.js';
