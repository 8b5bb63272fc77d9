import { createHash } from 'node:crypto';
import { Serial } from '../../platform/serial.js';
import { isDeepStrictEqual } from 'node:util';
import type { ConnectorType } from '../../api/connector.js';
import type { ConnectorResource } from '../../api/resources.js';
import type { Logger } from '../../platform/log.js';
import type { DeclarativeSource, SourceEvent } from '../source/types.js';
import { ConnectorError, isConnectorError } from './errors.js';
import { createConnector, parseOptions } from './factory.js';
import { effectiveLimits, sqlDialectOf, type ConnectorOptions, type QueryOptions } from './options.js';
import type { ConnectionResolver } from './resolve.js';
import type {
  ConnectorHealth,
  ConnectorInfo,
  ConnectorStatus,
  ConnectorStatusReporter,
  PreparedCall,
  ToolPinStatus,
} from './status.js';
import type { Connector, QueryResult, ToolDescription, ToolResult } from './types.js';
import { APPROVE_TOOLS_ANNOTATION, pinStatus, type ToolGate, type ToolPins, type ToolsView } from './pins/pins.js';

export interface ConnectorRegistryOptions {
  source: DeclarativeSource;
  resolveUrl: ConnectionResolver;
  reporter?: ConnectorStatusReporter;
  /** Connectors of this namespace only. @default all namespaces */
  namespace?: string;
  /** Pins the tool definitions of `mcp` connectors (pins/pins.ts); absent: their tools are used as listed. */
  pins?: ToolPins;
  log?: Logger;
  now?: () => Date;
}

interface Entry {
  doc: ConnectorResource;
  /** The resolved connection URL: a rotated secret replaces the connector even when the spec is the same. */
  url?: string;
  connector?: Connector;
  options?: ConnectorOptions;
  /** Why the connector could not be built (missing URL, bad options). */
  broken?: ConnectorError;
  status: ConnectorStatus;
  timer?: NodeJS.Timeout;
  /** An `mcp` connector's listing held against its pin. */
  gate?: ToolGate;
}

const DEFAULT_INTERVAL_S = 30;
const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

/**
 * The loaded connectors, following the declarative source: added and modified documents build a new
 * connector (the old one's pool is closed after the swap), deleted ones are closed. Health runs on each
 * document's interval and on demand.
 */
export class ConnectorRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly queue = new Serial();
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private readonly now: () => Date;

  constructor(private readonly opts: ConnectorRegistryOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** Loads every Connector and follows the source's changes. */
  async start(): Promise<void> {
    await this.opts.source.ready();
    this.unsubscribe = this.opts.source.subscribe((events) => void this.queue.run(() => this.apply(events)));
    await this.loadAll();
  }

  /** Re-reads the source (a folder re-reads its files) and every Connector; answers how many are loaded. */
  async refresh(): Promise<number> {
    await this.opts.source.reload?.();
    return this.loadAll();
  }

  private loadAll(): Promise<number> {
    return this.queue.run(async () => {
      const docs = this.opts.source.list('Connector', this.opts.namespace);
      const names = new Set(docs.map((d) => d.metadata.name));
      for (const name of [...this.entries.keys()]) if (!names.has(name)) await this.remove(name);
      for (const doc of docs) await this.upsert(doc);
      return this.entries.size;
    });
  }

  list(): ConnectorInfo[] {
    return [...this.entries.values()]
      .map((e) => ({
        name: e.doc.metadata.name,
        type: e.doc.spec.type,
        status: e.status.status,
        last_health_check: e.status.lastHealthCheck ?? null,
        latency_ms: e.status.latencyMs ?? null,
        allowed_operations: [...e.doc.spec.allowedOperations],
        ...(e.status.tools ? { tool_definitions: definitionsInfo(e.status.tools) } : {}),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The Connector document a loaded connector was built from (tenancy reads `spec.organizations`). */
  resource(name: string): ConnectorResource | undefined {
    return this.entries.get(name)?.doc;
  }

  status(name: string): ConnectorStatus {
    return { ...this.entry(name).status };
  }

  /** Runs a health check now and records it. */
  async checkHealth(name: string): Promise<ConnectorHealth> {
    const e = this.entry(name);
    const timeoutMs = e.doc.spec.healthCheck?.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    const result = e.connector
      ? await e.connector.health(timeoutMs)
      : { ok: false, latencyMs: 0, error: e.broken?.message ?? 'not loaded' };
    const checkedAt = this.now().toISOString();
    // a check that finished after the connector was replaced or removed reports nothing
    if (this.entries.get(name) === e) {
      e.status = {
        status: result.ok ? 'healthy' : 'unhealthy',
        lastHealthCheck: checkedAt,
        latencyMs: round(result.latencyMs),
        message: result.error,
        ...(e.status.tools ? { tools: e.status.tools } : {}),
      };
      this.report(name, e);
    }
    return {
      name,
      type: e.doc.spec.type,
      healthy: result.ok,
      status: result.ok ? 'healthy' : 'unhealthy',
      latency_ms: round(result.latencyMs),
      last_check: checkedAt,
      error: result.error,
    };
  }

  private report(name: string, e: Entry): void {
    void Promise.resolve(this.opts.reporter?.report(name, { ...e.status })).catch((err: unknown) =>
      this.opts.log?.warn({ connector: name, err: String(err) }, 'connector status report failed'),
    );
  }

  /** An `mcp` connector's listing was held against its pin: the status carries the verdict. */
  private pinsChanged(name: string, e: Entry, view: ToolsView): void {
    if (this.entries.get(name) !== e) return;
    e.status = { ...e.status, tools: pinStatus(view) };
    this.report(name, e);
  }

  /** `GET /mcp/health`: the named connectors (default: every one) checked now, in parallel. */
  async checkAll(names: readonly string[] = [...this.entries.keys()]): Promise<{
    healthy: boolean;
    total_connectors: number;
    healthy_count: number;
    unhealthy_count: number;
    timestamp: string;
    connectors: ConnectorHealth[];
  }> {
    const connectors = await Promise.all(names.map((n) => this.checkHealth(n)));
    const healthyCount = connectors.filter((c) => c.healthy).length;
    return {
      healthy: healthyCount === connectors.length,
      total_connectors: connectors.length,
      healthy_count: healthyCount,
      unhealthy_count: connectors.length - healthyCount,
      timestamp: this.now().toISOString(),
      connectors,
    };
  }

  /** Checks the operation and the statement (SQL guard); `run()` executes it with the call's limits. */
  prepareQuery(
    name: string,
    statement: string,
    params: unknown,
    options: QueryOptions = {},
  ): PreparedCall<QueryResult> {
    const { connector, opts } = this.usable(name, 'query');
    const prepared = connector.prepare(statement, params);
    const limits = effectiveLimits(opts, options);
    const type = connector.type;
    return {
      connector: { name, type },
      operation: 'query',
      statement: prepared.text,
      statementHash: sha256(statement),
      sql: prepared.sql,
      mcp: { connector: name, type, operation: 'query', statement, params, sql: prepared.sql },
      run: () => connector.query(prepared, limits),
    };
  }

  /**
   * Checks the tool against allowedOperations (the tool's name, or `execute` for every tool). NB: the
   * SQL kinds' `query` tool is guarded here, before policy, exactly like a query.
   */
  prepareTool(
    name: string,
    tool: string,
    params: Record<string, unknown> = {},
    options: QueryOptions = {},
  ): PreparedCall<ToolResult> {
    const { connector, opts } = this.usable(name, tool, 'execute');
    connector.admit?.(tool);
    const limits = effectiveLimits(opts, options);
    const type = connector.type;
    const mcp = { connector: name, type, operation: tool, tool, params };
    if (tool === 'query' && sqlDialectOf(type)) {
      const statement = String(params.statement ?? params.query ?? '');
      const prepared = connector.prepare(statement, params.params);
      return {
        connector: { name, type },
        operation: tool,
        statement: prepared.text,
        statementHash: sha256(statement),
        sql: prepared.sql,
        mcp: { ...mcp, statement, params: params.params, sql: prepared.sql },
        run: async () => {
          const res = await connector.query(prepared, limits);
          return {
            result: { rows: res.rows, row_count: res.row_count, columns: res.columns },
            execution_time_ms: res.execution_time_ms,
            truncated: res.truncated,
            redactions: res.redactions,
          };
        },
      };
    }
    return { connector: { name, type }, operation: tool, mcp, run: () => connector.execute(tool, params, limits) };
  }

  query(name: string, statement: string, params?: unknown, options?: QueryOptions): Promise<QueryResult> {
    return Promise.resolve().then(() => this.prepareQuery(name, statement, params, options).run());
  }

  execute(name: string, tool: string, params?: Record<string, unknown>, options?: QueryOptions): Promise<ToolResult> {
    return Promise.resolve().then(() => this.prepareTool(name, tool, params, options).run());
  }

  /** The tools callers may use: each connector's tools that its allowedOperations permit. */
  tools(name?: string): { connector: string; type: ConnectorType; tool: ToolDescription }[] {
    const out: { connector: string; type: ConnectorType; tool: ToolDescription }[] = [];
    for (const e of this.entries.values()) {
      if ((name && e.doc.metadata.name !== name) || !e.connector) continue;
      const allowed = e.doc.spec.allowedOperations;
      for (const tool of e.connector.tools()) {
        if (
          allowed.includes(tool.name) ||
          allowed.includes('execute') ||
          (tool.name === 'query' && allowed.includes('query'))
        ) {
          out.push({ connector: e.doc.metadata.name, type: e.doc.spec.type, tool });
        }
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await this.queue.run(async () => {
      for (const name of [...this.entries.keys()]) await this.remove(name);
    });
  }

  private entry(name: string): Entry {
    const e = this.entries.get(name);
    if (!e) throw new ConnectorError('CONNECTOR_NOT_FOUND', `no connector named ${name}`, { connector: name });
    return e;
  }

  private usable(name: string, ...operations: string[]): { connector: Connector; opts: ConnectorOptions } {
    const e = this.entry(name);
    if (!operations.some((op) => e.doc.spec.allowedOperations.includes(op))) {
      throw new ConnectorError(
        'OPERATION_NOT_ALLOWED',
        `operation ${operations[0]} is not in allowedOperations of ${name}`,
        { connector: name, reason: 'NOT_IN_ALLOWED_OPERATIONS' },
      );
    }
    if (!e.connector || !e.options)
      throw (
        e.broken ?? new ConnectorError('CONNECTOR_UNAVAILABLE', `connector ${name} is not loaded`, { connector: name })
      );
    return { connector: e.connector, opts: e.options };
  }

  private async apply(events: readonly SourceEvent[]): Promise<void> {
    for (const ev of events) {
      if (ev.resource.kind !== 'Connector' || this.closed) continue;
      const doc = ev.resource as ConnectorResource;
      if (this.opts.namespace && doc.metadata.namespace !== this.opts.namespace) continue;
      if (ev.type === 'deleted') await this.remove(doc.metadata.name);
      else await this.upsert(doc);
    }
  }

  private async upsert(doc: ConnectorResource): Promise<void> {
    const name = doc.metadata.name;
    const old = this.entries.get(name);
    const url = await this.opts.resolveUrl(doc).catch((e: unknown) => e as Error);
    if (
      old &&
      isDeepStrictEqual(old.doc.spec, doc.spec) &&
      (url instanceof Error ? old.url === undefined : old.url === url)
    ) {
      const approval = approvalOf(old.doc);
      old.doc = doc;
      // NB: not awaited: holding the listing again reads the store, and source events must not wait on it.
      if (approvalOf(doc) !== approval) void old.gate?.reconsider();
      return;
    }
    const entry: Entry = { doc, status: { status: 'unknown' } };
    try {
      if (url instanceof Error) throw url;
      entry.options = parseOptions(doc);
      if ((doc.spec.type === 'mcp' || doc.spec.type === 'a2a') && this.opts.pins)
        entry.gate = this.opts.pins.gate(
          `${doc.metadata.namespace ?? 'default'}/${name}`,
          name,
          () => approvalOf(entry.doc),
          (view) => this.pinsChanged(name, entry, view),
        );
      entry.connector = await createConnector(doc, url, entry.gate);
      entry.url = url;
    } catch (e) {
      entry.broken = isConnectorError(e)
        ? e
        : new ConnectorError('CONNECTOR_MISCONFIGURED', 'connector could not be built', { connector: name });
      entry.status = { status: 'unhealthy', message: entry.broken.message };
    }
    this.entries.set(name, entry);
    if (old) await this.dispose(old);
    this.opts.log?.info({ connector: name, type: doc.spec.type, op: old ? 'replaced' : 'added' }, 'connector loaded');
    if (entry.connector) {
      const interval = (doc.spec.healthCheck?.intervalSeconds ?? DEFAULT_INTERVAL_S) * 1000;
      entry.timer = setInterval(() => void this.checkHealth(name).catch(() => undefined), interval);
      entry.timer.unref();
      void entry.connector
        .connect()
        .catch(() => undefined)
        .then(() => (this.entries.get(name) === entry ? this.checkHealth(name) : undefined))
        .catch(() => undefined);
    }
  }

  private async remove(name: string): Promise<void> {
    const e = this.entries.get(name);
    if (!e) return;
    this.entries.delete(name);
    await this.dispose(e);
    this.opts.log?.info({ connector: name, op: 'removed' }, 'connector removed');
  }

  private async dispose(e: Entry): Promise<void> {
    clearInterval(e.timer);
    await e.connector?.close().catch(() => undefined);
  }
}

/** `GET /mcp/connectors`'s summary of the pins: the digests, and how many tools are held (not their names). */
function definitionsInfo(t: ToolPinStatus): NonNullable<ConnectorInfo['tool_definitions']> {
  return {
    approved: t.approved ?? null,
    current: t.current,
    held: t.tools.filter((x) => x.state !== 'approved' && x.state !== 'removed').length,
  };
}

/** The digest `steward.dev/approve-tools` approves, trimmed; undefined when absent or empty. */
function approvalOf(doc: ConnectorResource): string | undefined {
  const value = doc.metadata.annotations?.[APPROVE_TOOLS_ANNOTATION]?.trim();
  return value ? value : undefined;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
