/**
 * A small REST client for the Kubernetes API, shared by the operator and the runtimes. @kubernetes/client-node
 * loads the configuration (kubeconfig or in-cluster service account, token rotation, TLS material); the calls
 * themselves go through one keep-alive undici Agent, because client-node makes a new connection pool per call.
 *
 * What it adds: typed errors (`KubeApiError`), a deadline on every call, 429 answered by waiting Retry-After,
 * a client-side token bucket (QPS and burst, as client-go has), a counter of requests by verb, and an observer
 * told of every request's verb, resource, status code and latency (the operator's metrics). Every call takes the
 * caller's `signal` (STYLE.md habit 12): it cuts the rate-limit wait, the request and the 429 wait alike.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { KubeApiError } from './errors.js';
import { collectionPath, objectPath, type ResourceRef } from './resources.js';
import { TokenBucket } from './token-bucket.js';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
};

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** What every call takes. */
export interface CallOptions {
  /**
   * Cancels the call: the rate-limit wait, the request in flight and any 429 retry. The call then rejects with
   * `KubeApiError` code 0, reason `Aborted` (`isAborted`), the signal's reason as its cause; it is not retried.
   */
  signal?: AbortSignal;
}

/** Options of the writes: create, replace, replaceStatus and patch. */
export interface WriteOptions extends CallOptions {
  fieldManager?: string;
}

export interface ListOptions extends CallOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  metadata: { resourceVersion: string; continue?: string };
  items: T[];
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The API's verbs, as client-go and RBAC name them. */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/**
 * Told of every request sent, each attempt on its own (a 429 waited out and retried is two). Called on the
 * request path: it must be cheap and must not throw.
 */
export interface KubeRequestObserver {
  /**
   * `subresource` is '' or e.g. 'status'; `code` the HTTP status, 0 when no answer came (timeout, connection
   * failure); `seconds` from sending to the answer read (a watch: to its headers), without the wait for the
   * client's own rate limit.
   */
  request(verb: KubeVerb, resource: ResourceRef, subresource: string, code: number, seconds: number): void;
}
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface KubeClientOptions {
  /** Kubeconfig file; absent: the in-cluster service account. */
  kubeconfigFile?: string;
  /** Kubeconfig text (tests). */
  kubeconfigYaml?: string;
  /**
   * Without a kubeconfig: the folder the pod's /var/run/secrets/kubernetes.io/serviceaccount is found under.
   * '' in a real pod; the test kubelet's STEWARD_POD_ROOT there. @default ''
   */
  podRoot?: string;
  /** Sustained requests per second. @default 100 */
  qps?: number;
  /** Requests allowed at once above the sustained rate. @default 200 */
  burst?: number;
  /** Deadline of one call (not of a watch). @default 30s */
  timeoutMs?: number;
  /** Sent as User-Agent; also what the test server's request log shows. @default steward */
  userAgent?: string;
  /** Most times a 429 is retried after its Retry-After. @default 5 */
  maxThrottleRetries?: number;
  /** Told of every request (metrics). */
  observer?: KubeRequestObserver;
}

interface Connection {
  server: URL;
  dispatcher: Dispatcher;
  headers: () => Promise<Record<string, string>>;
}

/** How long the Authorization header is reused before the configuration is asked again (token rotation). */
const HEADER_TTL_MS = 60_000;
const MAX_RETRY_AFTER_S = 30;

export class KubeClient {
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

  static async connect(opts: KubeClientOptions = {}): Promise<KubeClient> {
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
    const dispatcher = new Agent({
      connect: {
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        rejectUnauthorized: tls.rejectUnauthorized,
        servername: tls.servername,
      },
      keepAliveTimeout: 30_000,
      connections: 64,
    });
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
    return new KubeClient({ server: new URL(cluster.server), dispatcher, headers }, opts);
  }

  /** Requests made so far by verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`). */
  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  async list<T extends KubeObject = KubeObject>(r: ResourceRef, opts: ListOptions = {}): Promise<KubeList<T>> {
    const query: Record<string, string> = {};
    if (opts.labelSelector) query.labelSelector = opts.labelSelector;
    if (opts.fieldSelector) query.fieldSelector = opts.fieldSelector;
    if (opts.limit) query.limit = String(opts.limit);
    if (opts.continue) query.continue = opts.continue;
    if (opts.resourceVersion !== undefined) query.resourceVersion = opts.resourceVersion;
    return (await this.call('list', 'GET', r, collectionPath(r, opts.namespace), {
      query,
      signal: opts.signal,
    })) as KubeList<T>;
  }

  async get<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: CallOptions = {},
  ): Promise<T> {
    return (await this.call('get', 'GET', r, objectPath(r, namespace, name), { signal: opts.signal })) as T;
  }

  /** Like `get`, but undefined on 404. */
  async tryGet<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: CallOptions = {},
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(r, namespace, name, opts);
    } catch (err) {
      if (err instanceof KubeApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  async create<T extends KubeObject>(r: ResourceRef, obj: T, opts: WriteOptions = {}): Promise<T> {
    return (await this.call('create', 'POST', r, collectionPath(r, obj.metadata.namespace), {
      body: obj,
      query: managerQuery(opts),
      signal: opts.signal,
    })) as T;
  }

  /** Replaces the object; 409 when `metadata.resourceVersion` is stale. */
  async replace<T extends KubeObject>(r: ResourceRef, obj: T, opts: WriteOptions = {}): Promise<T> {
    return (await this.call('update', 'PUT', r, objectPath(r, obj.metadata.namespace, obj.metadata.name!), {
      body: obj,
      query: managerQuery(opts),
      signal: opts.signal,
    })) as T;
  }

  /** Replaces the status subresource; 409 when `metadata.resourceVersion` is stale. */
  async replaceStatus<T extends KubeObject>(r: ResourceRef, obj: T, opts: WriteOptions = {}): Promise<T> {
    return (await this.call('update', 'PUT', r, objectPath(r, obj.metadata.namespace, obj.metadata.name!, 'status'), {
      body: obj,
      query: managerQuery(opts),
      subresource: 'status',
      signal: opts.signal,
    })) as T;
  }

  async patch<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions & { type?: PatchType; subresource?: string; force?: boolean } = {},
  ): Promise<T> {
    const type = opts.type ?? 'merge';
    const query = managerQuery(opts);
    if (opts.force) query.force = 'true';
    return (await this.call('patch', 'PATCH', r, objectPath(r, namespace, name, opts.subresource), {
      body,
      query,
      contentType: PATCH_CONTENT_TYPES[type],
      subresource: opts.subresource,
      signal: opts.signal,
    })) as T;
  }

  /** Deletes; false when it was already gone. Background propagation: owned objects go after their owner. */
  async delete(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: CallOptions & { uid?: string } = {},
  ): Promise<boolean> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' };
    if (opts.uid) body.preconditions = { uid: opts.uid };
    try {
      await this.call('delete', 'DELETE', r, objectPath(r, namespace, name), { body, signal: opts.signal });
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === 404) return false;
      throw err;
    }
  }

  /**
   * Opens a watch stream; the answer's body is read line by line by the caller (`watch.ts`). The call has no
   * deadline: the server ends it after `timeoutSeconds`, and the caller's signal cuts it.
   */
  async openWatch(
    r: ResourceRef,
    query: Record<string, string>,
    namespace: string | undefined,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    await this.bucket.take(signal);
    this.count('watch');
    const url = new URL(collectionPath(r, namespace), this.conn.server);
    for (const [k, v] of Object.entries({ ...query, watch: 'true' })) url.searchParams.set(k, v);
    const headers = { ...(await this.conn.headers()), accept: 'application/json', 'user-agent': this.userAgent };
    const startedAt = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        headers,
        dispatcher: this.conn.dispatcher,
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
    await this.conn.dispatcher.close();
  }

  private count(verb: string): void {
    this.counts.set(verb, (this.counts.get(verb) ?? 0) + 1);
  }

  private observe(verb: KubeVerb, r: ResourceRef, subresource: string, code: number, startedAt: number): void {
    this.observer?.request(verb, r, subresource, code, (performance.now() - startedAt) / 1000);
  }

  private async call(
    verb: KubeVerb,
    method: Dispatcher.HttpMethod,
    r: ResourceRef,
    path: string,
    opts: CallOptions & {
      query?: Record<string, string>;
      body?: unknown;
      contentType?: string;
      subresource?: string;
    } = {},
  ): Promise<unknown> {
    const subresource = opts.subresource ?? '';
    const url = new URL(path, this.conn.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const caller = opts.signal;
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
            ...(payload === undefined ? {} : { 'content-type': opts.contentType ?? 'application/json' }),
          },
          body: payload,
          dispatcher: this.conn.dispatcher,
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

function managerQuery(opts: { fieldManager?: string }): Record<string, string> {
  return opts.fieldManager ? { fieldManager: opts.fieldManager } : {};
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
