import type { Dispatcher } from 'undici';
import { ConnectorError } from '../errors.js';
import { capRows, redactRows, toolResult, withTimeout } from '../limits.js';
import { splitCredentials } from '../net/auth.js';
import { GuardedHttp } from '../net/client.js';
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
import { ConnectorBase } from './base.js';

const READ_METHODS = new Set(['GET', 'HEAD']);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * An HTTP API through undici, behind the SSRF guard (net/). `query(path, params)` is a GET: an array
 * fills `$1…` in the path, an object becomes the query string. The `request` tool sends any allowed
 * method with a JSON body. JSON answers become rows; the body is capped at maxResultBytes while read.
 */
export class HttpConnector extends ConnectorBase implements Connector {
  private readonly http: GuardedHttp;
  private readonly auth: Record<string, string>;
  /** The base URL's path without its trailing slash: statements are paths below it. */
  private readonly basePath: string;

  constructor(name: string, url: string, options: ConnectorOptions) {
    super(name, 'http', url, options);
    const split = splitCredentials(url);
    this.auth = split.headers;
    this.http = new GuardedHttp({
      baseUrl: split.url,
      allowedCidrs: options.allowedCidrs,
      maxRedirects: options.maxRedirects,
      connectTimeoutMs: options.connectTimeoutMs,
      poolMax: options.poolMax,
    });
    this.basePath = this.http.basePath;
  }

  async connect(): Promise<void> {
    // sockets open on first use; the origin and networks were checked in the constructor
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    const started = performance.now();
    try {
      const res = await this.send('GET', this.basePath + this.options.healthPath, undefined, timeoutMs, 64 * 1024);
      if (res.status >= 500) throw new ConnectorError('CONNECTOR_UNAVAILABLE', `health check answered ${res.status}`);
      return { ok: true, latencyMs: performance.now() - started };
    } catch (e) {
      return { ok: false, latencyMs: performance.now() - started, error: this.fail(e, 'health check').message };
    }
  }

  prepare(statement: string, params: unknown): PreparedStatement {
    const path = String(statement ?? '');
    if (!path.startsWith('/'))
      throw new ConnectorError('INVALID_PARAMS', 'an http statement is a path starting with /');
    const filled = Array.isArray(params)
      ? path.replace(/\$(\d+)/g, (_m, n: string) => pathParam(params[Number(n) - 1]))
      : path;
    // NB: "/v1" + "/../admin" normalises to "/admin", which resolve() refuses: a statement stays below the base path.
    const url = this.http.resolve(this.basePath + filled);
    if (params && typeof params === 'object' && !Array.isArray(params)) {
      for (const [k, v] of Object.entries(params))
        url.searchParams.append(k, typeof v === 'string' ? v : JSON.stringify(v));
    }
    return { text: url.pathname + url.search, params: [] };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const started = performance.now();
    const res = await this.send('GET', prepared.text, undefined, limits.timeoutMs, limits.maxResultBytes);
    if (res.status >= 400)
      throw new ConnectorError('CONNECTOR_QUERY_FAILED', `http GET answered ${res.status}`, {
        connector: this.name,
        reason: `HTTP_${res.status}`,
      });
    const capped = capRows(bodyRows(res.body, res.headers['content-type']), limits);
    const redacted = redactRows(capped.rows, limits.redact);
    return {
      rows: redacted.rows,
      row_count: redacted.rows.length,
      execution_time_ms: performance.now() - started,
      truncated: capped.truncated,
      redactions: redacted.redactions,
    };
  }

  async execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult> {
    if (tool !== 'request')
      throw new ConnectorError('OPERATION_NOT_ALLOWED', `no tool ${tool} on http connector ${this.name}`, {
        connector: this.name,
        reason: 'UNKNOWN_TOOL',
      });
    const method = String(params.method ?? 'GET').toUpperCase();
    if (!METHODS.has(method)) throw new ConnectorError('INVALID_PARAMS', `method ${method} is not supported`);
    if (this.options.readOnly && !READ_METHODS.has(method)) this.refuseWrite(method);
    const started = performance.now();
    const prepared = this.prepare(String(params.path ?? '/'), params.query ?? undefined);
    const body = params.body === undefined ? undefined : JSON.stringify(params.body);
    const res = await this.send(
      method as Dispatcher.HttpMethod,
      prepared.text,
      body,
      limits.timeoutMs,
      limits.maxResultBytes,
    );
    return toolResult({ status: res.status, body: parseBody(res.body, res.headers['content-type']) }, started, limits);
  }

  private async send(
    method: Dispatcher.HttpMethod,
    path: string,
    body: string | undefined,
    timeoutMs: number,
    maxBytes: number,
  ) {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...this.auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    try {
      return await withTimeout(
        this.http.request(this.http.resolve(path), { method, headers, body, signal: controller.signal, maxBytes }),
        timeoutMs,
        () => controller.abort(),
      );
    } catch (e) {
      throw this.fail(e, 'request');
    }
  }

  tools(): ToolDescription[] {
    return [
      {
        name: 'request',
        description: `Send an HTTP request to connector ${this.name} (${this.options.readOnly ? 'GET and HEAD only' : 'any method'})`,
        inputSchema: {
          type: 'object',
          properties: { method: { type: 'string' }, path: { type: 'string' }, query: { type: 'object' }, body: {} },
          required: ['path'],
        },
        writes: !this.options.readOnly,
      },
    ];
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** One `$n` value as a path segment; `.` and `..` are refused: a value never moves the path (the URL parser would). */
function pathParam(value: unknown): string {
  const text = String(value ?? '');
  if (text === '.' || text === '..') {
    throw new ConnectorError('SSRF_REFUSED', 'a path parameter may not be a dot segment', { reason: 'ENCODED_PATH' });
  }
  return encodeURIComponent(text);
}

function parseBody(body: Buffer, contentType: string | string[] | undefined): unknown {
  const text = body.toString('utf8');
  if (String(contentType ?? '').includes('json') && text.length > 0) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** A JSON array of objects is rows; an object is one row; anything else is `{value}` rows. */
function bodyRows(body: Buffer, contentType: string | string[] | undefined): Row[] {
  const v = parseBody(body, contentType);
  const asRow = (x: unknown): Row => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Row) : { value: x });
  return Array.isArray(v) ? v.map(asRow) : [asRow(v)];
}
