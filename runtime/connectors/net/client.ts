import { Agent, fetch as undiciFetch, request, type Dispatcher } from 'undici';
import { ConnectorError } from '../errors.js';
import { addressPolicy, assertOnOrigin, guardedLookup, originOf, type AddressPolicy } from './ssrf.js';

export interface GuardedHttpOptions {
  baseUrl: string;
  allowedCidrs: readonly string[];
  maxRedirects: number;
  connectTimeoutMs: number;
  poolMax: number;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * An undici Agent whose sockets only reach allowed addresses, plus same-origin redirect handling.
 * Used by the http connector (`request`) and handed to the MCP SDK as its `fetch`.
 */
export class GuardedHttp {
  readonly origin: URL;
  readonly policy: AddressPolicy;
  readonly dispatcher: Agent;

  constructor(private readonly options: GuardedHttpOptions) {
    this.origin = originOf(options.baseUrl);
    this.policy = addressPolicy(options.allowedCidrs);
    this.dispatcher = new Agent({
      connect: { lookup: guardedLookup(this.policy), timeout: options.connectTimeoutMs },
      connections: options.poolMax,
    });
  }

  /** A URL on the origin: `path` is resolved against the base URL and must stay on its origin. */
  resolve(path: string): URL {
    const target = new URL(path, this.options.baseUrl);
    assertOnOrigin(target, this.origin, this.policy);
    return target;
  }

  async request(
    url: URL,
    init: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string; signal: AbortSignal; maxBytes: number },
  ): Promise<HttpAnswer> {
    let target = url;
    for (let hop = 0; ; hop++) {
      assertOnOrigin(target, this.origin, this.policy);
      const res = await request(target, { method: init.method, headers: init.headers, body: init.body, signal: init.signal, dispatcher: this.dispatcher });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump();
        if (hop >= this.options.maxRedirects) throw new ConnectorError('CONNECTOR_QUERY_FAILED', 'too many redirects');
        target = new URL(location, target);
        if (target.origin !== this.origin.origin) throw new ConnectorError('SSRF_REFUSED', 'redirect leaves the connector origin', { reason: 'REDIRECT_OFF_ORIGIN' });
        continue;
      }
      return { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, init.maxBytes) };
    }
  }

  /** A fetch for the MCP SDK: same origin only, redirects followed only on the origin. */
  readonly fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    let target = new URL(String(input instanceof Request ? input.url : input));
    for (let hop = 0; ; hop++) {
      assertOnOrigin(target, this.origin, this.policy);
      const res = (await undiciFetch(target, { ...(init as object), redirect: 'manual', dispatcher: this.dispatcher })) as unknown as Response;
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) return res;
      await res.body?.cancel();
      if (hop >= this.options.maxRedirects) throw new ConnectorError('CONNECTOR_QUERY_FAILED', 'too many redirects');
      target = new URL(location, target);
      if (target.origin !== this.origin.origin) throw new ConnectorError('SSRF_REFUSED', 'redirect leaves the connector origin', { reason: 'REDIRECT_OFF_ORIGIN' });
    }
  };

  /** Lets in-flight requests finish for up to `graceMs`, then cuts them (an SSE stream never ends). Idempotent. */
  async close(graceMs = 2000): Promise<void> {
    if (this.dispatcher.closed || this.dispatcher.destroyed) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
    const done = await Promise.race([this.dispatcher.close().then(() => 'closed' as const), grace]);
    clearTimeout(timer);
    if (done === 'late') await this.dispatcher.destroy().catch(() => undefined);
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new ConnectorError('RESULT_TOO_LARGE', `answer larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
