import { Redis } from 'ioredis';
import { ConnectorError } from '../errors.js';
import { capRows, redactRows, withTimeout } from '../limits.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import type {
  Connector,
  HealthResult,
  PreparedStatement,
  QueryResult,
  Row,
  ToolDescription,
  ToolResult,
} from '../types.js';
import { ConnectorBase, positional } from './base.js';

/** Commands callers may send; anything else (FLUSHALL, CONFIG, EVAL, KEYS, ...) is refused. */
const READ = new Set([
  'get',
  'mget',
  'strlen',
  'exists',
  'ttl',
  'pttl',
  'type',
  'hget',
  'hgetall',
  'hmget',
  'hkeys',
  'hlen',
  'lrange',
  'llen',
  'lindex',
  'smembers',
  'sismember',
  'scard',
  'zrange',
  'zscore',
  'zcard',
  'zrank',
]);
const WRITE = new Set([
  'set',
  'del',
  'unlink',
  'expire',
  'pexpire',
  'incr',
  'incrby',
  'decr',
  'hset',
  'hdel',
  'lpush',
  'rpush',
  'sadd',
  'srem',
  'zadd',
  'zrem',
  'publish',
]);

/**
 * Redis through ioredis. `query(statement, params)` runs one allowed command (`GET` with `[key]`);
 * the tools are the same commands with named params. Commands fail fast while disconnected (no offline
 * queue) and the client reconnects with capped back-off. `keyPrefix` namespaces every key.
 */
export class RedisConnector extends ConnectorBase implements Connector {
  private client: Redis | undefined;

  constructor(name: string, url: string, options: ConnectorOptions) {
    super(name, 'redis', url, options);
  }

  private ensureClient(): Redis {
    if (!this.client) {
      this.client = new Redis(this.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: this.options.connectTimeoutMs,
        keyPrefix: this.options.keyPrefix,
        retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5000),
      });
      this.client.on('error', () => undefined);
    }
    return this.client;
  }

  private async ready(): Promise<Redis> {
    const c = this.ensureClient();
    if (c.status === 'wait' || c.status === 'end')
      await c.connect().catch((e: unknown) => Promise.reject(this.fail(e, 'connect')));
    return c;
  }

  async connect(): Promise<void> {
    await this.ready();
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    const started = performance.now();
    try {
      const c = await withTimeout(this.ready(), timeoutMs);
      await withTimeout(c.ping(), timeoutMs);
      return { ok: true, latencyMs: performance.now() - started };
    } catch (e) {
      return { ok: false, latencyMs: performance.now() - started, error: this.fail(e, 'health check').message };
    }
  }

  prepare(statement: string, params: unknown): PreparedStatement {
    const command = String(statement ?? '')
      .trim()
      .toLowerCase();
    if (!READ.has(command) && !WRITE.has(command)) {
      throw new ConnectorError(
        'OPERATION_NOT_ALLOWED',
        `redis command ${command.toUpperCase() || '(empty)'} is not allowed`,
        { connector: this.name, reason: 'COMMAND_NOT_ALLOWED' },
      );
    }
    if (this.options.readOnly && WRITE.has(command)) this.refuseWrite(command.toUpperCase());
    return {
      text: command,
      params: positional(params).map((p) => (typeof p === 'string' || typeof p === 'number' ? p : JSON.stringify(p))),
    };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const started = performance.now();
    try {
      const c = await this.ready();
      const value = await withTimeout(
        c.call(prepared.text, ...(prepared.params as (string | number)[])),
        limits.timeoutMs,
      );
      const capped = capRows(toRows(prepared.text, value), limits);
      const redacted = redactRows(capped.rows, limits.redact);
      return {
        rows: redacted.rows,
        row_count: redacted.rows.length,
        execution_time_ms: performance.now() - started,
        truncated: capped.truncated,
        redactions: redacted.redactions,
      };
    } catch (e) {
      throw this.fail(e, 'command');
    }
  }

  async execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult> {
    const args = Array.isArray(params.args)
      ? params.args
      : [params.key, params.field, params.value].filter((v) => v !== undefined);
    const res = await this.query(this.prepare(tool, args), limits);
    return {
      result: { rows: res.rows, row_count: res.row_count },
      execution_time_ms: res.execution_time_ms,
      truncated: res.truncated,
      redactions: res.redactions,
    };
  }

  tools(): ToolDescription[] {
    const schema = {
      type: 'object',
      properties: {
        key: { type: 'string' },
        value: {},
        field: { type: 'string' },
        args: { type: 'array', description: 'all arguments, in order (overrides key, field, value)' },
      },
    };
    const names = [...READ, ...(this.options.readOnly ? [] : [...WRITE])];
    return names.map((n) => ({
      name: n,
      description: `Redis ${n.toUpperCase()} on connector ${this.name}`,
      inputSchema: schema,
      writes: WRITE.has(n),
    }));
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    await c.quit().catch(() => c.disconnect());
  }
}

/** Redis replies as rows: hashes as field/value pairs (HGETALL arrives flat), lists as values. */
function toRows(command: string, value: unknown): Row[] {
  if (command === 'hgetall' && Array.isArray(value)) {
    const rows: Row[] = [];
    for (let i = 0; i + 1 < value.length; i += 2) rows.push({ field: value[i], value: value[i + 1] });
    return rows;
  }
  if (Array.isArray(value)) return value.map((v) => ({ value: v }));
  // ioredis turns HGETALL replies into objects
  if (value && typeof value === 'object' && !Buffer.isBuffer(value))
    return Object.entries(value).map(([field, v]) => ({ field, value: v }));
  return [{ value }];
}
