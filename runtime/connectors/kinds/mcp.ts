import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { traceHeaders } from '../../tracing/spans.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConnectorError } from '../errors.js';
import { Backoff, capRows, redactRows, toolResult, withTimeout } from '../limits.js';
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
import type { ToolGate } from '../pins/pins.js';
import { VERSION } from '../../../platform/version.js';

/** How many pages of tools/list are read, and how many tools are kept. */
const MAX_TOOL_PAGES = 50;
const MAX_TOOLS = 5000;

interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

/**
 * A remote MCP server through the SDK's Client: Streamable HTTP first, SSE when that fails (`auto`).
 * All traffic goes through the SSRF-guarded fetch. The server's tools are this connector's tools; a
 * read-only connector only runs tools annotated `readOnlyHint: true`. `query(uri)` reads a resource.
 * A lost session is re-opened on the next call or health check, with back-off between attempts.
 *
 * The tool list is read at session open, at each health check and on `notifications/tools/list_changed`; with a
 * gate (pins/pins.ts), each listing is held against the pinned definitions before it is used, and only the tools
 * the gate approves are listed and called.
 */
export class McpConnector extends ConnectorBase implements Connector {
  private readonly http: GuardedHttp;
  private readonly endpoint: string;
  private readonly auth: Record<string, string>;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private remoteTools: RemoteTool[] = [];
  private readonly backoff = new Backoff();

  constructor(
    name: string,
    url: string,
    options: ConnectorOptions,
    private readonly gate?: ToolGate,
  ) {
    super(name, 'mcp', url, options);
    const split = splitCredentials(url);
    this.endpoint = split.url;
    this.auth = split.headers;
    this.http = new GuardedHttp({
      baseUrl: split.url,
      allowedCidrs: options.allowedCidrs,
      maxRedirects: options.maxRedirects,
      connectTimeoutMs: options.connectTimeoutMs,
      poolMax: options.poolMax,
    });
  }

  async connect(): Promise<void> {
    await this.session(true);
  }

  private session(force = false): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (!this.connecting) {
      if (!force && !this.backoff.ready())
        return Promise.reject(
          new ConnectorError('CONNECTOR_UNAVAILABLE', 'MCP server unreachable; reconnecting', { connector: this.name }),
        );
      this.connecting = this.open().finally(() => (this.connecting = undefined));
    }
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const url = this.http.resolve(this.endpoint);
    const requestInit = { headers: { ...this.options.headers, ...this.auth } };
    const fetch = this.http.fetch as unknown as FetchLike;
    const kinds = this.options.transport === 'auto' ? (['streamable-http', 'sse'] as const) : [this.options.transport];
    let last: unknown;
    for (const kind of kinds) {
      const client = new Client({ name: 'steward-gateway', version: VERSION });
      const transport =
        kind === 'sse'
          ? new SSEClientTransport(url, { fetch, requestInit })
          : new StreamableHTTPClientTransport(url, { fetch, requestInit });
      try {
        await withTimeout(client.connect(transport), this.options.connectTimeoutMs);
        await this.relist(client, this.options.timeoutMs);
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          // NB: a failed re-list keeps the last listing; the next health check lists again.
          void this.relist(client, this.options.timeoutMs).catch(() => undefined);
        });
        client.onclose = () => {
          if (this.client === client) this.client = undefined;
        };
        this.client = client;
        this.backoff.succeeded();
        return client;
      } catch (e) {
        last = e;
        await client.close().catch(() => undefined);
        if (e instanceof ConnectorError && e.code === 'SSRF_REFUSED') break;
      }
    }
    this.backoff.failed();
    throw this.fail(last, 'connect');
  }

  /** Reads every page of the server's tools, holds them against the pins, then uses them. */
  private async relist(client: Client, timeoutMs: number): Promise<void> {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await withTimeout(client.listTools(cursor ? { cursor } : undefined), timeoutMs);
      tools.push(...(listed.tools as RemoteTool[]));
      cursor = listed.nextCursor;
      if (!cursor || tools.length >= MAX_TOOLS) break;
    }
    await this.gate?.listed(
      tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })),
    );
    this.remoteTools = tools;
  }

  private async drop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => undefined);
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    const started = performance.now();
    try {
      const c = await withTimeout(this.session(true), timeoutMs);
      await c.ping({ timeout: timeoutMs });
      // NB: a server that changes its tools without telling (no list_changed) is caught here.
      await this.relist(c, timeoutMs);
      return { ok: true, latencyMs: performance.now() - started };
    } catch (e) {
      await this.drop();
      return { ok: false, latencyMs: performance.now() - started, error: this.fail(e, 'health check').message };
    }
  }

  prepare(statement: string): PreparedStatement {
    if (typeof statement !== 'string' || statement.length === 0)
      throw new ConnectorError('INVALID_PARAMS', 'an mcp query names a resource URI');
    return { text: statement, params: [] };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const started = performance.now();
    const c = await this.session();
    try {
      const res = await c.readResource({ uri: prepared.text }, { timeout: limits.timeoutMs });
      const capped = capRows(res.contents as Row[], limits);
      const redacted = redactRows(capped.rows, limits.redact);
      return {
        rows: redacted.rows,
        row_count: redacted.rows.length,
        execution_time_ms: performance.now() - started,
        truncated: capped.truncated,
        redactions: redacted.redactions,
      };
    } catch (e) {
      throw await this.callFailed(e);
    }
  }

  async execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult> {
    const c = await this.session();
    const remote = this.remoteTools.find((t) => t.name === tool);
    if (!remote)
      throw new ConnectorError('OPERATION_NOT_ALLOWED', `no tool ${tool} on MCP connector ${this.name}`, {
        connector: this.name,
        reason: 'UNKNOWN_TOOL',
      });
    if (this.options.readOnly && remote.annotations?.readOnlyHint !== true) this.refuseWrite(`tool ${tool}`);
    this.admit(tool);
    const started = performance.now();
    try {
      // NB: the trace context goes in the request's _meta (the MCP convention), when the call is traced.
      const trace = traceHeaders<Record<string, string>>({});
      const res = await c.callTool(
        { name: tool, arguments: params, ...(trace.traceparent ? { _meta: trace } : {}) },
        undefined,
        { timeout: limits.timeoutMs },
      );
      const size = Buffer.byteLength(JSON.stringify(res));
      if (size > limits.maxResultBytes)
        throw new ConnectorError('RESULT_TOO_LARGE', `tool answer larger than ${limits.maxResultBytes} bytes`, {
          connector: this.name,
        });
      return toolResult(res, started, limits);
    } catch (e) {
      throw await this.callFailed(e);
    }
  }

  /** A timeout stays a timeout; a transport failure drops the session so the next call reconnects. */
  private async callFailed(e: unknown): Promise<ConnectorError> {
    if (e instanceof ConnectorError) return e;
    const code = (e as { code?: unknown }).code;
    if (code === -32001) return new ConnectorError('CONNECTOR_TIMEOUT', 'MCP call timed out', { connector: this.name });
    const err = this.fail(e, 'call');
    if (err.code === 'CONNECTOR_UNAVAILABLE' || typeof code !== 'number') await this.drop();
    return err;
  }

  tools(): ToolDescription[] {
    const gate = this.gate;
    return this.remoteTools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema,
      writes: t.annotations?.readOnlyHint !== true,
      ...(gate && !gate.approved(t.name) ? { held: true } : {}),
    }));
  }

  admit(tool: string): void {
    this.gate?.admit(tool);
  }

  async close(): Promise<void> {
    await this.drop();
    await this.http.close();
  }
}
