import type { ConnectorType } from '../../api/connector.js';
import type { EffectiveLimits } from './options.js';
import type { SqlSummary } from './sql/guard.js';

export type Row = Record<string, unknown>;

/** What a query answers (the wire names of the reference: `row_count`, `execution_time_ms`). */
export interface QueryResult {
  rows: Row[];
  row_count: number;
  execution_time_ms: number;
  columns?: string[];
  /** Rows changed by a write (read-write SQL connectors). */
  affected_rows?: number;
  /** Rows or bytes were cut at the cap. */
  truncated: boolean;
  /** Redactions per kind, when redaction ran. */
  redactions?: Record<string, number>;
  /** The parsed statement's operation and tables (SQL kinds). */
  sql?: SqlSummary;
}

export interface ToolResult {
  result: unknown;
  execution_time_ms: number;
  truncated: boolean;
  redactions?: Record<string, number>;
}

export interface ToolDescription {
  name: string;
  description: string;
  /** JSON Schema of the `params` object. */
  inputSchema: Record<string, unknown>;
  /** True when the tool can change data (refused on read-only connectors). */
  writes: boolean;
  /** An `mcp` tool whose definition is not approved (pins): not listed, and its calls are refused. */
  held?: boolean;
}

export interface HealthResult {
  ok: boolean;
  latencyMs: number;
  /** Sanitised error text of a failed check. */
  error?: string;
}

/** A statement after the guard: what will run. */
export interface PreparedStatement {
  text: string;
  params: unknown[];
  sql?: SqlSummary;
}

/**
 * One connection to one system. Implementations own their pool and its limits; every error they throw
 * is a ConnectorError with a sanitised message.
 */
export interface Connector {
  readonly name: string;
  readonly type: ConnectorType;
  /** Opens the pool or session; a failure leaves the connector usable (it reconnects with back-off). */
  connect(): Promise<void>;
  health(timeoutMs: number): Promise<HealthResult>;
  /** Checks a statement without running it (the SQL guard for SQL kinds). Throws SQL_REFUSED etc. */
  prepare(statement: string, params: unknown): PreparedStatement;
  query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult>;
  execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult>;
  tools(): ToolDescription[];
  /** Throws when the tool may not be called now (an `mcp` tool held by its pin); before any policy runs. */
  admit?(tool: string): void;
  /** Drains the pool; waits for in-flight calls up to the pool's own shutdown. */
  close(): Promise<void>;
}
