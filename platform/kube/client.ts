/**
 * A small REST client for the Kubernetes API, shared by the operator and the runtimes: the typed verbs (list, get,
 * create, replace, patch, delete, watch) over one transport (`transport.ts`: the connection, the token bucket, the
 * deadline, 429 retries, typed errors, the request observer). Every call takes the caller's `signal` (STYLE.md
 * habit 12). The shapes it speaks are in `types.ts`, re-exported here.
 */
import type { Dispatcher } from 'undici';
import { KubeApiError } from './errors.js';
import { collectionPath, objectPath, type ResourceRef } from './resources.js';
import { Transport } from './transport.js';
import type {
  CallOptions,
  KubeClientOptions,
  KubeList,
  KubeObject,
  ListOptions,
  PatchType,
  WriteOptions,
} from './types.js';

export type {
  CallOptions,
  KubeClientOptions,
  KubeList,
  KubeObject,
  KubeRequestObserver,
  KubeVerb,
  ListOptions,
  OwnerReference,
  PatchType,
  WriteOptions,
} from './types.js';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export class KubeClient {
  private constructor(private readonly transport: Transport) {}

  static async connect(opts: KubeClientOptions = {}): Promise<KubeClient> {
    return new KubeClient(await Transport.connect(opts));
  }

  /** Requests made so far by verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`). */
  requestCounts(): Record<string, number> {
    return this.transport.requestCounts();
  }

  async list<T extends KubeObject = KubeObject>(r: ResourceRef, opts: ListOptions = {}): Promise<KubeList<T>> {
    const query: Record<string, string> = {};
    if (opts.labelSelector) query.labelSelector = opts.labelSelector;
    if (opts.fieldSelector) query.fieldSelector = opts.fieldSelector;
    if (opts.limit) query.limit = String(opts.limit);
    if (opts.continue) query.continue = opts.continue;
    if (opts.resourceVersion !== undefined) query.resourceVersion = opts.resourceVersion;
    return (await this.transport.call('list', 'GET', r, collectionPath(r, opts.namespace), {
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
    return (await this.transport.call('get', 'GET', r, objectPath(r, namespace, name), { signal: opts.signal })) as T;
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
    return (await this.transport.call('create', 'POST', r, collectionPath(r, obj.metadata.namespace), {
      body: obj,
      query: managerQuery(opts),
      signal: opts.signal,
    })) as T;
  }

  /** Replaces the object; 409 when `metadata.resourceVersion` is stale. */
  async replace<T extends KubeObject>(r: ResourceRef, obj: T, opts: WriteOptions = {}): Promise<T> {
    const path = objectPath(r, obj.metadata.namespace, obj.metadata.name!);
    return (await this.transport.call('update', 'PUT', r, path, {
      body: obj,
      query: managerQuery(opts),
      signal: opts.signal,
    })) as T;
  }

  /** Replaces the status subresource; 409 when `metadata.resourceVersion` is stale. */
  async replaceStatus<T extends KubeObject>(r: ResourceRef, obj: T, opts: WriteOptions = {}): Promise<T> {
    const path = objectPath(r, obj.metadata.namespace, obj.metadata.name!, 'status');
    return (await this.transport.call('update', 'PUT', r, path, {
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
    const query = managerQuery(opts);
    if (opts.force) query.force = 'true';
    return (await this.transport.call('patch', 'PATCH', r, objectPath(r, namespace, name, opts.subresource), {
      body,
      query,
      contentType: PATCH_CONTENT_TYPES[opts.type ?? 'merge'],
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
      await this.transport.call('delete', 'DELETE', r, objectPath(r, namespace, name), { body, signal: opts.signal });
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === 404) return false;
      throw err;
    }
  }

  /**
   * Opens a watch stream; the answer's body is read line by line by the caller (`informer.ts`). The call has no
   * deadline: the server ends it after `timeoutSeconds`, and the caller's signal cuts it.
   */
  openWatch(
    r: ResourceRef,
    query: Record<string, string>,
    namespace: string | undefined,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    return this.transport.watch(r, collectionPath(r, namespace), query, signal);
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}

function managerQuery(opts: { fieldManager?: string }): Record<string, string> {
  return opts.fieldManager ? { fieldManager: opts.fieldManager } : {};
}
