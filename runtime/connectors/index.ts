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
// NB: types only: the guard's parser (node-sql-parser) loads with the first SQL connector (factory.ts).
export type { GuardedSql, SqlGuardOptions, SqlSummary, SqlRefusal } from './sql/guard.js';
export { redactText, redactValue, type RedactionCounts } from '../redact/index.js';
export { addressPolicy } from './net/ssrf.js';
export { sanitizeMessage } from './sanitize.js';
