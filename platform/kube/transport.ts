/**
 * The client's transport: the connection made from the Kubernetes configuration, and the one request path every
 * call takes — the client-side token bucket (QPS and burst, as client-go has), a deadline, 429 answered by waiting
 * Retry-After, typed errors (`KubeApiError`), a count by verb and the observer (the operator's metrics). Every
 * request takes the caller's `signal` (STYLE.md habit 12): it cuts the rate-limit wait, the request and the 429
 * wait alike.
 *
 * @kubernetes/client-node loads the configuration (kubeconfig or in-cluster service account, token rotation, TLS
 * material); requests go through keep-alive undici Agents, because client-node makes a new connection pool per call.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { KubeApiError } from './errors.js';
import type { ResourceRef } from './resources.js';
import { TokenBucket } from './token-bucket.js';
import type { CallOptions, KubeClientOptions, KubeRequestObserver, KubeVerb } from './types.js';

interface Connection {
  server: URL;
  /** Request/response calls: a bounded pool. */
  calls: Dispatcher;
  /** Watches, each holding its connection while it runs (HTTP/1.1); not bounded, so they never starve the calls. */
  watches: Dispatcher;
  headers: () => Promise<Record<string, string>>;
}

/** What one call sends, besides its verb and resource. */
export interface RequestSpec extends CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  contentType?: string;
  subresource?: string;
}

/** How long the Authorization header is reused before the configuration is asked again (token rotation). */
const HEADER_TTL_MS = 60_000;
const MAX_RETRY_AFTER_S = 30;

export class Transport {
  private readonly bucket: TokenBucket;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly maxThrottleRetries: number;
  private readonly counts = new Map<string, number>();
  private readonly observer: KubeRequestObserver | undefined;

  private constructor(
    private readonly conn: Connection,
    opts: KubeClientOptions,
  ) {
    this.bucket = new TokenBucket(opts.qps ?? 100, opts.burst ?? 200);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.userAgent = opts.userAgent ?? 'steward';
    this.maxThrottleRetries = opts.maxThrottleRetries ?? 5;
    this.observer = opts.observer;
  }

  static async connect(opts: KubeClientOptions): Promise<Transport> {
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    if (opts.kubeconfigYaml !== undefined) kc.loadFromString(opts.kubeconfigYaml);
    else if (opts.kubeconfigFile !== undefined) kc.loadFromFile(opts.kubeconfigFile);
    else kc.loadFromCluster(opts.podRoot || undefined);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the Kubernetes configuration names no current cluster');
    const tls: {
      ca?: Buffer;
      cert?: Buffer;
      key?: Buffer;
      rejectUnauthorized?: boolean;
      servername?: string;
      headers?: Record<string, string>;
    } = {};
    await kc.applyToHTTPSOptions(tls as never);
    const connect = {
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      rejectUnauthorized: tls.rejectUnauthorized,
      servername: tls.servername,
    };
    let cached: { at: number; headers: Record<string, string> } | undefined;
    const headers = async (): Promise<Record<string, string>> => {
      if (cached && Date.now() - cached.at < HEADER_TTL_MS) return cached.headers;
      const o: { headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(o as never);
      const h: Record<string, string> = {};
      for (const [k, v] of Object.entries(o.headers ?? {})) h[k.toLowerCase()] = String(v);
      cached = { at: Date.now(), headers: h };
      return h;
    };
    return new Transport(
      {
        server: new URL(cluster.server),
        calls: new Agent({ connect, keepAliveTimeout: 30_000, connections: 64 }),
        watches: new Agent({ connect, keepAliveTimeout: 30_000 }),
        headers,
      },
      opts,
    );
  }

  /** Requests made so far by verb. */
  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** Sends one call and reads its JSON answer; retries 429 after Retry-After; throws `KubeApiError`. */
  async call(
    verb: KubeVerb,
    method: Dispatcher.HttpMethod,
    r: ResourceRef,
    path: string,
    spec: RequestSpec = {},
  ): Promise<unknown> {
    const subresource = spec.subresource ?? '';
    const url = new URL(path, this.conn.server);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const caller = spec.signal;
    const where = `${method} ${url.pathname}`;
    for (let attempt = 0; ; attempt++) {
      if (caller?.aborted) throw aborted(where, caller);
      const deadline = AbortSignal.timeout(this.timeoutMs);
      const signal = caller ? AbortSignal.any([caller, deadline]) : deadline;
      try {
        await this.bucket.take(signal);
      } catch (err) {
        throw this.failure(where, err, caller, deadline);
      }
      this.count(verb);
      const startedAt = performance.now();
      let res: Dispatcher.ResponseData | undefined;
      let answer: unknown;
      let error: KubeApiError | undefined;
      try {
        res = await request(url, {
          method,
          headers: {
            ...(await this.conn.headers()),
            accept: 'application/json',
            'user-agent': this.userAgent,
            ...(payload === undefined ? {} : { 'content-type': spec.contentType ?? 'application/json' }),
          },
          body: payload,
          dispatcher: this.conn.calls,
          signal,
        });
        if (res.statusCode >= 200 && res.statusCode < 300) answer = await res.body.json();
        else error = await apiError(res);
      } catch (err) {
        this.observe(verb, r, subresource, res?.statusCode ?? 0, startedAt);
        // NB: an answer came but its body could not be read or parsed: not a connection failure, unless cut.
        if (res && !signal.aborted) throw err;
        throw this.failure(where, err, caller, deadline);
      }
      this.observe(verb, r, subresource, res.statusCode, startedAt);
      if (!error) return answer;
      if (error.code === 429 && attempt < this.maxThrottleRetries) {
        // NB: cut short by the caller's signal; the check at the top of the loop then rejects.
        await sleep(Math.min(error.retryAfterSeconds ?? 1, MAX_RETRY_AFTER_S) * 1000, caller);
        continue;
      }
      throw error;
    }
  }

  /**
   * Opens a watch stream at `path`; its body is read line by line by the caller. No deadline but the headers': the
   * server ends the watch after its `timeoutSeconds`, and the caller's signal cuts it.
   */
  async watch(
    r: ResourceRef,
    path: string,
    query: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    await this.bucket.take(signal);
    this.count('watch');
    const url = new URL(path, this.conn.server);
    for (const [k, v] of Object.entries({ ...query, watch: 'true' })) url.searchParams.set(k, v);
    const headers = { ...(await this.conn.headers()), accept: 'application/json', 'user-agent': this.userAgent };
    const startedAt = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        headers,
        dispatcher: this.conn.watches,
        signal,
        bodyTimeout: 0,
        headersTimeout: this.timeoutMs,
      });
    } catch (err) {
      this.observe('watch', r, '', 0, startedAt);
      throw err;
    }
    this.observe('watch', r, '', res.statusCode, startedAt);
    if (res.statusCode !== 200) throw await apiError(res);
    return res;
  }

  async close(): Promise<void> {
    await Promise.all([this.conn.calls.close(), this.conn.watches.close()]);
  }

  private count(verb: string): void {
    this.counts.set(verb, (this.counts.get(verb) ?? 0) + 1);
  }

  private observe(verb: KubeVerb, r: ResourceRef, subresource: string, code: number, startedAt: number): void {
    this.observer?.request(verb, r, subresource, code, (performance.now() - startedAt) / 1000);
  }

  /** Why an attempt got no answer: the caller's signal (Aborted), the deadline (Timeout), or the network. */
  private failure(where: string, err: unknown, caller: AbortSignal | undefined, deadline: AbortSignal): KubeApiError {
    if (caller?.aborted) return aborted(where, caller);
    if (deadline.aborted)
      return new KubeApiError(0, 'Timeout', `${where}: no answer within ${this.timeoutMs} ms`, undefined, {
        cause: err,
      });
    return new KubeApiError(0, 'ConnectionFailed', `${where}: ${(err as Error).message}`, undefined, { cause: err });
  }
}

function aborted(where: string, signal: AbortSignal): KubeApiError {
  return new KubeApiError(0, 'Aborted', `${where}: cancelled by the caller`, undefined, { cause: signal.reason });
}

async function apiError(res: Dispatcher.ResponseData): Promise<KubeApiError> {
  const text = await res.body.text();
  let reason = '';
  let message = text.slice(0, 2000) || `HTTP ${res.statusCode}`;
  try {
    const status = JSON.parse(text) as { reason?: string; message?: string };
    reason = status.reason ?? '';
    message = status.message ?? message;
  } catch {
    // NB: a proxy in front of the API server may answer with HTML; the text is kept as the message.
  }
  const retryAfter = Number(res.headers['retry-after']);
  return new KubeApiError(
    res.statusCode,
    reason || String(res.statusCode),
    message,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
