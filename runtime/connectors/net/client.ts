import { Agent, fetch as undiciFetch, request, type Dispatcher } from 'undici';
import { ConnectorError } from '../errors.js';
import {
  addressPolicy,
  assertOnOrigin,
  basePathOf,
  guardedLookup,
  hasEncodedTraversal,
  isBelowBasePath,
  originOf,
  type AddressPolicy,
} from './ssrf.js';

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
 * An undici Agent whose sockets only reach allowed addresses, plus redirect handling that keeps to the origin and
 * to the base URL's path (a redirect must not reach what the same path given directly could not).
 * Used by the http connector (`request`) and handed to the MCP SDK as its `fetch`.
 */
export class GuardedHttp {
  readonly origin: URL;
  readonly policy: AddressPolicy;
  readonly dispatcher: Agent;
  /** Requests (`resolve`, `request`) and every redirect stay at or below this path; '' is the whole origin. */
  readonly basePath: string;

  constructor(private readonly options: GuardedHttpOptions) {
    this.origin = originOf(options.baseUrl);
    this.basePath = basePathOf(this.origin);
    this.policy = addressPolicy(options.allowedCidrs);
    this.dispatcher = new Agent({
      connect: { lookup: guardedLookup(this.policy), timeout: options.connectTimeoutMs },
      connections: options.poolMax,
    });
  }

  /** A URL on the origin: `path` is resolved against the base URL and must stay on its origin and below its path. */
  resolve(path: string): URL {
    const target = new URL(path, this.options.baseUrl);
    this.assertAllowed(target);
    return target;
  }

  async request(
    url: URL,
    init: {
      method: Dispatcher.HttpMethod;
      headers: Record<string, string>;
      body?: string;
      signal: AbortSignal;
      maxBytes: number;
    },
  ): Promise<HttpAnswer> {
    let target = url;
    this.assertAllowed(target);
    for (let hop = 0; ; hop++) {
      const res = await request(target, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal: init.signal,
        dispatcher: this.dispatcher,
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump();
        target = this.redirectTarget(location, target, hop);
        continue;
      }
      return { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, init.maxBytes) };
    }
  }

  /**
   * A fetch for the MCP SDK: same origin only, redirects followed only on the origin and below the base path.
   * NB: the first request is held to the origin only: the SSE transport posts to the message path the server
   * names in its `endpoint` event, which need not be below the SSE URL's path.
   */
  readonly fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    let target = new URL(String(input instanceof Request ? input.url : input));
    assertOnOrigin(target, this.origin, this.policy);
    for (let hop = 0; ; hop++) {
      const res = (await undiciFetch(target, {
        ...(init as object),
        redirect: 'manual',
        dispatcher: this.dispatcher,
      })) as unknown as Response;
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) return res;
      await res.body?.cancel();
      target = this.redirectTarget(location, target, hop);
    }
  };

  private assertAllowed(target: URL): void {
    assertOnOrigin(target, this.origin, this.policy);
    if (!isBelowBasePath(target, this.basePath)) {
      throw new ConnectorError('SSRF_REFUSED', 'path leaves the connector base path', { reason: 'OUTSIDE_BASE_PATH' });
    }
    refuseEncodedTraversal(target);
  }

  /** Where a redirect leads, when it may be followed: on the origin, below the base path, within the hop limit. */
  private redirectTarget(location: string, from: URL, hop: number): URL {
    if (hop >= this.options.maxRedirects) throw new ConnectorError('CONNECTOR_QUERY_FAILED', 'too many redirects');
    const target = new URL(location, from);
    if (target.origin !== this.origin.origin)
      throw new ConnectorError('SSRF_REFUSED', 'redirect leaves the connector origin', {
        reason: 'REDIRECT_OFF_ORIGIN',
      });
    if (!isBelowBasePath(target, this.basePath)) {
      throw new ConnectorError('SSRF_REFUSED', 'redirect leaves the connector base path', {
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
    }
    refuseEncodedTraversal(target);
    assertOnOrigin(target, this.origin, this.policy);
    return target;
  }

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

function refuseEncodedTraversal(target: URL): void {
  if (hasEncodedTraversal(target.pathname)) {
    throw new ConnectorError('SSRF_REFUSED', 'the path holds an encoded slash or dot segment', {
      reason: 'ENCODED_PATH',
    });
  }
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  maxBytes: number,
): Promise<Buffer> {
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
