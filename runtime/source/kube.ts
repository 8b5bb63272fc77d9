/**
 * Declarative state from the Kubernetes API: one informer per kind (list + watch, no polling) in one namespace, and
 * one each over its Secrets (`secretRef`s) and ConfigMaps (wasm bundles' `configMapRef`s). Objects are validated with the same api/ schemas as the folder source; an
 * invalid object is an `issues()` entry (named `<plural>/<namespace>/<name>`), never a crash. Writes create or
 * replace the custom resource; reads come from the caches.
 */
import { isDeepStrictEqual } from 'node:util';
import { KIND_NAMES, validateManifest, type AnyResource, type KindName, type ResourceByKind } from '../../api/index.js';
import {
  Informer,
  isConflict,
  isNotFound,
  Resources,
  type InformerEvent,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import { SourceWriteError } from './folder.js';
import { ReferencedObjects, references, type ReferencedKind } from './kube-refs.js';
import type { ConfigMapData, DeclarativeSource, LoadIssue, SourceEvent, SourceListener } from './types.js';

export interface KubernetesSourceOptions {
  client: KubeClient;
  /** The one namespace read and written (the pod's own). */
  namespace: string;
  /** Also follow the namespace's Secrets, for `secret()`. @default true (ConfigMaps are always followed) */
  secrets?: boolean;
  /** Sent with writes. @default steward-runtime */
  fieldManager?: string;
  /** How long `apply`/`delete` wait for the watch to show their write, so that a read right after sees it. @default 5s */
  writeVisibleTimeoutMs?: number;
  /** Informer tuning (tests shorten the back-off and the watch timeout). */
  informer?: { backoffMs?: number; maxBackoffMs?: number; watchTimeoutSeconds?: number };
  log?: Logger;
}

interface Waiter {
  done: (obj: KubeObject | undefined) => boolean;
  resolve: () => void;
}

/** A Secret's data key, decoded. */
export type SecretLookup = (namespace: string, name: string, key: string) => string | undefined;

export class KubernetesSource implements DeclarativeSource {
  private readonly informers = new Map<KindName, Informer>();
  private readonly refs: ReferencedObjects;
  private readonly entries = new Map<string, AnyResource>();
  private readonly loadIssues = new Map<string, LoadIssue[]>();
  private readonly listeners = new Set<SourceListener>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private pending: SourceEvent[] = [];
  private flushScheduled = false;
  private readonly initial: Promise<void>;
  private readonly fieldManager: string;
  private closed = false;

  constructor(private readonly opts: KubernetesSourceOptions) {
    this.fieldManager = opts.fieldManager ?? 'steward-runtime';
    const informerOpts = { namespace: opts.namespace, log: opts.log, ...opts.informer };
    for (const kind of KIND_NAMES) {
      const inf = new Informer(opts.client, refOf(kind), informerOpts);
      inf.on((e) => this.onObject(kind, e));
      this.informers.set(kind, inf.start());
    }
    this.refs = new ReferencedObjects(opts.client, opts.namespace, informerOpts, {
      secrets: opts.secrets ?? true,
      onChange: (kind, name) => this.onReferenced(kind, name),
    });
    const all = [...this.informers.values(), ...this.refs.start()];
    this.initial = Promise.all(all.map((i) => i.synced())).then(() => this.flush());
  }

  /** Resolves once every informer (one per kind of api/kinds.ts, Secrets and ConfigMaps) has listed. */
  ready(): Promise<void> {
    return this.initial;
  }

  /** Whether every informer has listed (for /readyz). */
  get synced(): boolean {
    return [...this.informers.values(), ...this.refs.informers()].every((i) => i.hasSynced);
  }

  get namespace(): string {
    return this.opts.namespace;
  }

  list<K extends KindName>(kind: K, namespace?: string): ResourceByKind[K][] {
    if (namespace !== undefined && namespace !== this.opts.namespace) return [];
    const out: ResourceByKind[K][] = [];
    for (const r of this.entries.values()) if (r.kind === kind) out.push(r as ResourceByKind[K]);
    return out;
  }

  get<K extends KindName>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined {
    return this.entries.get(keyOf(kind, namespace ?? this.opts.namespace, name)) as ResourceByKind[K] | undefined;
  }

  /** The object as the API server holds it (resourceVersion, status), for status writers. */
  object(kind: KindName, name: string): KubeObject | undefined {
    return this.informers.get(kind)!.get(this.opts.namespace, name);
  }

  issues(): readonly LoadIssue[] {
    return [...this.loadIssues.values()].flat();
  }

  subscribe(listener: SourceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One key of a Secret of the namespace, decoded; undefined when the Secret or the key is absent. */
  secret(namespace: string, name: string, key: string): string | undefined {
    return this.refs.secret(namespace, name, key);
  }

  /** A ConfigMap of the namespace, from the cache; undefined when absent (or of another namespace). */
  configMap(namespace: string, name: string): ConfigMapData | undefined {
    return this.refs.configMap(namespace, name);
  }

  /**
   * Creates the object when absent, else replaces it carrying the current resourceVersion (one retry on 409,
   * after re-reading). A `metadata.resourceVersion` given by the caller is a precondition: a stale one fails.
   */
  async apply(resource: AnyResource): Promise<AnyResource> {
    const result = validateManifest(resource);
    if (!result.valid || !result.resource) throw new SourceWriteError('invalid resource', result.errors);
    const valid = result.resource;
    const namespace = valid.metadata.namespace ?? this.opts.namespace;
    if (namespace !== this.opts.namespace) {
      throw new SourceWriteError('invalid resource', [
        { field: 'metadata.namespace', message: `this runtime writes namespace ${this.opts.namespace} only` },
      ]);
    }
    const kind = valid.kind as KindName;
    const ref = refOf(kind);
    const name = valid.metadata.name;
    const precondition = resource.metadata.resourceVersion;
    const body = writeBody(valid, namespace);
    const opts = { fieldManager: this.fieldManager };
    let written: KubeObject;
    if (precondition !== undefined) {
      written = await this.opts.client
        .replace(ref, { ...body, metadata: { ...body.metadata, resourceVersion: precondition } }, opts)
        .catch((err: unknown) => {
          throw isConflict(err)
            ? new SourceWriteError('conflict', [{ field: 'metadata.resourceVersion', message: (err as Error).message }])
            : err;
        });
    } else {
      let current: KubeObject | undefined = this.informers.get(kind)!.get(namespace, name);
      for (let attempt = 0; ; attempt++) {
        try {
          written = current
            ? await this.opts.client.replace(
                ref,
                { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata.resourceVersion } },
                opts,
              )
            : await this.opts.client.create(ref, body, opts);
          break;
        } catch (err) {
          // NB: the cache may lag the server (created elsewhere, or replaced since): read it again, once.
          if (attempt > 0 || !(isConflict(err) || (current !== undefined && isNotFound(err)))) throw err;
          current = await this.opts.client.tryGet(ref, namespace, name);
        }
      }
    }
    await this.waitFor(
      kind,
      namespace,
      name,
      (o) =>
        o !== undefined &&
        o.metadata.resourceVersion !== undefined &&
        newerOrEqual(o.metadata.resourceVersion, written.metadata.resourceVersion),
    );
    return this.get(kind, name, namespace) ?? (this.parse(kind, written) as AnyResource | undefined) ?? valid;
  }

  async delete(kind: KindName, name: string, namespace?: string): Promise<boolean> {
    const ns = namespace ?? this.opts.namespace;
    if (ns !== this.opts.namespace) return false;
    const gone = await this.opts.client.delete(refOf(kind), ns, name);
    if (gone) await this.waitFor(kind, ns, name, (o) => o === undefined);
    return gone;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.waiters.values()) for (const w of set) w.resolve();
    this.waiters.clear();
    await Promise.all([...this.informers.values(), ...this.refs.informers()].map((i) => i.stop()));
  }

  private onObject(kind: KindName, e: InformerEvent<KubeObject>): void {
    const namespace = e.object.metadata.namespace ?? this.opts.namespace;
    const name = String(e.object.metadata.name);
    const key = keyOf(kind, namespace, name);
    const old = this.entries.get(key);
    if (e.type === 'deleted') this.loadIssues.delete(key);
    const parsed = e.type === 'deleted' ? undefined : this.parse(kind, e.object);
    if (parsed) {
      this.entries.set(key, parsed);
      if (!old) this.push({ type: 'added', resource: parsed });
      else if (!isDeepStrictEqual(old, parsed)) this.push({ type: 'modified', resource: parsed });
    } else {
      this.entries.delete(key);
      if (old) this.push({ type: 'deleted', resource: old });
    }
    this.settle(key, e.type === 'deleted' ? undefined : e.object);
  }

  /** The validated resource, or undefined with its issues recorded. */
  private parse(kind: KindName, obj: KubeObject): AnyResource | undefined {
    const namespace = obj.metadata.namespace ?? this.opts.namespace;
    const key = keyOf(kind, namespace, String(obj.metadata.name));
    const origin = { file: `${refOf(kind).plural}/${namespace}/${String(obj.metadata.name)}`, documentIndex: 0 };
    const result = validateManifest(stripServerFields(obj));
    for (const w of result.warnings) this.opts.log?.warn({ ...origin, ...w }, 'manifest warning');
    if (!result.valid || !result.resource) {
      const issues = result.errors.map((i) => ({ ...origin, ...i }));
      this.loadIssues.set(key, issues);
      for (const issue of issues) this.opts.log?.warn(issue, 'manifest skipped');
      return undefined;
    }
    this.loadIssues.delete(key);
    return result.resource;
  }

  /**
   * A changed Secret may hold a rotated connection URL or License key, a changed ConfigMap a new wasm bundle: their
   * readers hear of it as a modification of the documents that reference it.
   */
  private onReferenced(kind: ReferencedKind, name: string): void {
    for (const r of this.entries.values()) if (references(r, kind, name)) this.push({ type: 'modified', resource: r });
  }

  private push(event: SourceEvent): void {
    this.pending.push(event);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // NB: one batch per tick: a re-list's many events reach listeners (policy compile) once.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pending;
    this.pending = [];
    if (!events.length || this.closed) return;
    for (const l of this.listeners) {
      try {
        l(events);
      } catch (err) {
        this.opts.log?.error({ err }, 'source listener failed');
      }
    }
  }

  /** Waits (bounded) until the cache shows what `done` expects, so that a read after a write sees it. */
  private waitFor(
    kind: KindName,
    namespace: string,
    name: string,
    done: (obj: KubeObject | undefined) => boolean,
  ): Promise<void> {
    if (this.closed || done(this.informers.get(kind)!.get(namespace, name))) return this.flushed();
    const key = keyOf(kind, namespace, name);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, this.opts.writeVisibleTimeoutMs ?? 5000);
      const set = this.waiters.get(key) ?? new Set<Waiter>();
      this.waiters.set(key, set);
      const w: Waiter = { done, resolve: finish };
      set.add(w);
      function finish() {
        clearTimeout(timer);
        set.delete(w);
        resolve();
      }
    }).then(() => this.flushed());
  }

  /** Lets the pending batch reach listeners first. */
  private flushed(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  private settle(key: string, obj: KubeObject | undefined): void {
    for (const w of this.waiters.get(key) ?? []) if (w.done(obj)) w.resolve();
  }
}

const refOf = (kind: KindName): ResourceRef => Resources[kind];
const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/** Server bookkeeping our schemas do not describe, and that no reader needs. */
function stripServerFields(obj: KubeObject): KubeObject {
  const { managedFields: _managed, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** What a create or replace sends: the document without status (a subresource) and without server-set metadata. */
function writeBody(r: AnyResource, namespace: string): KubeObject {
  const { resourceVersion: _rv, uid: _uid, generation: _gen, creationTimestamp: _ct, ...metadata } = r.metadata;
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: { ...metadata, namespace }, spec: r.spec };
}

/** resourceVersions are opaque, but the API server's are increasing integers; unknown shapes count as seen. */
function newerOrEqual(seen: string, wanted: string | undefined): boolean {
  if (wanted === undefined) return true;
  const [a, b] = [Number(seen), Number(wanted)];
  return Number.isFinite(a) && Number.isFinite(b) ? a >= b : seen === wanted;
}
