import { z } from 'zod';
import type { ConnectorType } from '../../api/connector.js';

/**
 * `spec.options` of a Connector, parsed once per document. Units are in the names. Defaults are the
 * documented limits (docs/connectors.md); a call may lower them (`QueryOptions`), never raise them.
 */
export const connectorOptions = z
  .object({
    /** Only reads: SELECT / WITH…SELECT / EXPLAIN for SQL, read commands for Redis, GET/HEAD for HTTP. @default true */
    readOnly: z.boolean().default(true),
    /**
     * Tables a statement may name, schema-qualified (`public.orders`) or bare (default schema), read as the server
     * reads names: PostgreSQL folds unquoted ones (`public."Orders"` keeps its case), MySQL compares exactly. @default any
     */
    allowedTables: z.array(z.string().min(1)).optional(),
    /** The schema (postgres) or database (mysql) of unqualified tables, for the allowlist. @default public / the URL's database */
    defaultSchema: z.string().min(1).optional(),
    /** LIMIT forced on every read: added when missing, lowered when larger. @default maxRows + 1 (to detect truncation) */
    forceLimit: z.number().int().min(1).optional(),
    /** Rows returned at most; more are cut and `truncated` is set. @default 1000 */
    maxRows: z.number().int().min(1).max(1_000_000).default(1000),
    /** Bytes of result (JSON) returned at most. @default 4 MiB */
    maxResultBytes: z
      .number()
      .int()
      .min(1024)
      .default(4 * 1024 * 1024),
    /** Longest a call may take; the server-side query is cancelled after it. @default 15 s */
    timeoutMs: z.number().int().min(10).max(600_000).default(15_000),
    /** Connections per pool (postgres, mysql). @default 10 */
    poolMax: z.number().int().min(1).max(200).default(10),
    /** How long to wait for a TCP/TLS connection. @default 5 s */
    connectTimeoutMs: z.number().int().min(10).default(5000),
    /** Scan string cells for PII and secrets and replace them with `[REDACTED:<kind>]`. @default false */
    redact: z.boolean().default(false),
    /**
     * SQL functions a confined connector (read-only, or with `allowedTables`) may call on top of the built-in
     * allowlist of pure functions: `name`, `prefix*`, or `schema.name` for a user-defined one. @default none
     */
    allowedFunctions: z.array(z.string().min(1)).default([]),
    /** Extra denied SQL functions (bare name, lower case; `prefix*`), on top of the built-in list; denial wins over allowedFunctions. */
    deniedFunctions: z.array(z.string().min(1)).default([]),
    /** http, mcp, a2a: networks the SSRF guard allows although private/loopback (CIDR). @default none */
    allowedCidrs: z.array(z.string().min(1)).default([]),
    /** http, mcp, a2a: same-origin redirects followed at most. @default 5 */
    maxRedirects: z.number().int().min(0).max(20).default(5),
    /** http, mcp, a2a: headers sent on every request. Not secret: credentials go in the connection URL (net/auth.ts). */
    headers: z.record(z.string(), z.string()).default({}),
    /** http: path used by the health check; any answer below 500 is healthy. @default / */
    healthPath: z.string().startsWith('/').default('/'),
    /** mcp: transport; `auto` tries Streamable HTTP, then SSE. @default auto */
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    /** redis: prefix added to every key (namespacing). @default none */
    keyPrefix: z.string().optional(),
    /**
     * a2a: the public keys the remote Agent Card must be signed with, as a JWK Set (public keys only). A card is
     * trusted when one of its signatures verifies against a key named here (by `kid`) or at `cardKeysUrl`.
     */
    cardKeys: z
      .object({ keys: z.array(z.record(z.string(), z.unknown())).min(1).max(32) })
      .strict()
      .optional(),
    /** a2a: where the trusted JWK Set is served (fetched under the same SSRF rules, kept 5 minutes). @default none */
    cardKeysUrl: z.string().url().optional(),
    /** a2a: trust a card with no signature (labs only: nothing then vouches for the card). @default false */
    unsignedCard: z.boolean().default(false),
  })
  .strict();

export type ConnectorOptions = z.infer<typeof connectorOptions>;

/** Per-call options (request `options`); they can only tighten the connector's. */
export interface QueryOptions {
  timeoutMs?: number;
  maxRows?: number;
  redact?: boolean;
}

/** The options that apply to one call: the connector's, tightened by the call's. */
export interface EffectiveLimits {
  timeoutMs: number;
  maxRows: number;
  maxResultBytes: number;
  redact: boolean;
}

export function effectiveLimits(o: ConnectorOptions, call: QueryOptions = {}): EffectiveLimits {
  const lower = (a: number, b: unknown) =>
    typeof b === 'number' && Number.isFinite(b) && b > 0 ? Math.min(a, Math.floor(b)) : a;
  return {
    timeoutMs: lower(o.timeoutMs, call.timeoutMs),
    maxRows: lower(o.maxRows, call.maxRows),
    maxResultBytes: o.maxResultBytes,
    // NB: a connector that redacts cannot be asked not to; a call may ask for redaction.
    redact: o.redact || call.redact === true,
  };
}

/** The SQL kinds' dialect (the guard's and the lexer's); undefined for the kinds that take no SQL. */
export const sqlDialectOf = (type: ConnectorType): 'postgresql' | 'mysql' | undefined =>
  type === 'postgres' || type === 'pglite' ? 'postgresql' : type === 'mysql' ? 'mysql' : undefined;
