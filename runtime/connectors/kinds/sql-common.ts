import { ConnectorError } from '../errors.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import type { GuardedSql, SqlSummary } from '../sql/guard.js';
import { GuardCache } from '../sql/guard-cache.js';
import type { SqlDialect } from '../sql/lexer.js';
import type {
  Connector,
  HealthResult,
  PreparedStatement,
  QueryResult,
  Row,
  ToolDescription,
  ToolResult,
} from '../types.js';
import { capRows, redactRows, withTimeout } from '../limits.js';
import { ConnectorBase, positional, sqlToolSchema } from './base.js';

/**
 * Guarded statements per connector. NB: keyed by the connector's parsed options, which one connector owns (one
 * parse per Connector document), so the dialect and default schema are fixed for each key.
 */
const caches = new WeakMap<ConnectorOptions, GuardCache>();

/** The guard with a connector's options (cached per statement), and the parameter count check. */
export function guardStatement(
  statement: string,
  params: unknown,
  dialect: SqlDialect,
  o: ConnectorOptions,
  defaultSchema?: string,
): PreparedStatement & { guarded: GuardedSql } {
  if (typeof statement !== 'string') throw new ConnectorError('INVALID_PARAMS', 'statement must be a string');
  const values = positional(params);
  let cache = caches.get(o);
  if (!cache) {
    cache = new GuardCache({
      dialect,
      readOnly: o.readOnly,
      allowedTables: o.allowedTables,
      defaultSchema: o.defaultSchema ?? defaultSchema,
      // NB: one row more than maxRows, so that a cut result is known to be cut
      forceLimit: o.readOnly ? (o.forceLimit ?? o.maxRows + 1) : o.forceLimit,
      allowedFunctions: o.allowedFunctions,
      deniedFunctions: o.deniedFunctions,
    });
    caches.set(o, cache);
  }
  const guarded = cache.guard(statement);
  const highest = guarded.lex.placeholders.reduce((m, p) => Math.max(m, p.index), 0);
  if (highest > values.length)
    throw new ConnectorError('INVALID_PARAMS', `statement uses $${highest} but ${values.length} params were given`);
  return { text: guarded.text, params: values, sql: summaryOf(guarded, values), guarded };
}

/** The summary policies read, its LIMIT read from the parameters when a `$n` gives it. */
function summaryOf(guarded: GuardedSql, values: readonly unknown[]): SqlSummary {
  if (guarded.limitParam === undefined) return guarded.summary;
  const v = values[guarded.limitParam - 1];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return { ...guarded.summary, limit: Number.isFinite(n) ? n : null };
}

/** The `query` tool of the SQL kinds: the same path as a query, the rows as its result. */
export async function sqlTool(
  c: Connector,
  tool: string,
  params: Record<string, unknown>,
  limits: EffectiveLimits,
): Promise<ToolResult> {
  if (tool !== 'query')
    throw new ConnectorError('OPERATION_NOT_ALLOWED', `no tool ${tool} on ${c.type} connector ${c.name}`, {
      connector: c.name,
      reason: 'UNKNOWN_TOOL',
    });
  const res = await c.query(c.prepare(String(params.statement ?? ''), params.params), limits);
  return {
    result: { rows: res.rows, row_count: res.row_count, columns: res.columns },
    execution_time_ms: res.execution_time_ms,
    truncated: res.truncated,
    redactions: res.redactions,
  };
}

/**
 * The SQL kinds (postgres, mysql): connect and health are one `SELECT 1` on the kind's pool, the one tool is `query`
 * (guarded like a resource query), and close ends the pool.
 */
export abstract class SqlConnectorBase extends ConnectorBase {
  /** `SELECT 1` on the pool (made on first use). */
  protected abstract ping(): Promise<unknown>;
  /** Ends the pool, if one was made. */
  protected abstract endPool(): Promise<void>;
  /** The database's name for tool descriptions: PostgreSQL, MySQL. */
  protected abstract readonly product: string;

  execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult> {
    return sqlTool(this as unknown as Connector, tool, params, limits);
  }

  tools(): ToolDescription[] {
    return [
      {
        name: 'query',
        description: `Run one SQL statement on ${this.product} connector ${this.name}`,
        inputSchema: { ...sqlToolSchema },
        writes: !this.options.readOnly,
      },
    ];
  }

  async close(): Promise<void> {
    await this.endPool().catch(() => undefined);
  }

  async connect(): Promise<void> {
    try {
      await this.ping();
    } catch (e) {
      throw this.fail(e, 'connect');
    }
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    const started = performance.now();
    try {
      await withTimeout(this.ping(), timeoutMs);
      return { ok: true, latencyMs: performance.now() - started };
    } catch (e) {
      return { ok: false, latencyMs: performance.now() - started, error: this.fail(e, 'health check').message };
    }
  }
}

/** A SQL answer as the connector returns it: rows capped and redacted, the time since `startedAt`. */
export function sqlResult(
  rows: Row[],
  limits: EffectiveLimits,
  startedAt: number,
  prepared: PreparedStatement,
  extra: { columns?: string[]; affectedRows?: number },
): QueryResult {
  const capped = capRows(rows, limits);
  const redacted = redactRows(capped.rows, limits.redact);
  return {
    rows: redacted.rows,
    row_count: redacted.rows.length,
    execution_time_ms: performance.now() - startedAt,
    columns: extra.columns,
    affected_rows: extra.affectedRows,
    truncated: capped.truncated,
    redactions: redacted.redactions,
    sql: prepared.sql,
  };
}

/** Gives a pooled connection back once its query (possibly cancelled) has settled either way. */
export function releaseAfter(work: Promise<unknown>, release: () => void): void {
  void work.then(release, release);
}
