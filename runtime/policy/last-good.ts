/**
 * The last good version of each Policy (docs/adr/0016-policy-last-good-and-wasm.md): the version that compiled
 * last, kept in force while the current one does not compile. In memory always; across restarts through an
 * optional store (`LastGoodStore`, runtime/store's `policy_last_good` table), written behind the compiles —
 * coalesced per Policy, in order, retried with back-off — and read once at start.
 */
import type { PolicyResource } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import type { PlanEntry } from './plan.js';

/** One Policy's last good version as a store keeps it: enough to rebuild it without its source. */
export interface LastGoodVersion {
  namespace: string;
  name: string;
  /** The Policy document that was in force (validated again when read back). */
  document: unknown;
  /** The bundle a wasm policy evaluated (resolved from bundleBase64 or its ConfigMap). */
  bundle?: Uint8Array;
  /** What was compiled (sha256 of spec and bundle): equal hashes are the same version. */
  hash: string;
  generation: number;
  resourceVersion?: string;
  uid?: string;
  storedAt: Date;
}

/** Where the engine keeps last good versions across restarts. Implemented by runtime/store (`store.lastGoodPolicies`). */
export interface LastGoodStore {
  /** The stored versions, of one namespace when given. */
  list(namespace?: string): Promise<LastGoodVersion[]>;
  /**
   * Upsert keyed by namespace/name, idempotent (replicas write the same rows): a stored version of the same hash,
   * or of a newer generation of the same object (a replica ahead of this one), is kept.
   */
  save(version: Omit<LastGoodVersion, 'storedAt'>): Promise<'stored' | 'kept'>;
  /** Removes the row of a deleted Policy; with `uid`, only that object's (not a re-created one's). */
  delete(namespace: string, name: string, uid?: string): Promise<void>;
}

/** A Policy as compiled: its document and its plan entry. */
export interface Loaded {
  doc: PolicyResource;
  entry: PlanEntry;
}

/** A last good version in force: in this process's memory, or restored from the store. */
export interface Good {
  loaded: Loaded;
  hash: string;
  generation: number;
  /** From the store (this process never compiled it), with when it was stored. */
  restored?: { storedAt: Date };
}

type Op = { t: 'save'; version: Omit<LastGoodVersion, 'storedAt'> } | { t: 'delete'; uid?: string };

const MAX_BACKOFF_MS = 30_000;

export class LastGoodVersions {
  private readonly good = new Map<string, Good>();
  /** Per Policy key, the hash the store is known to hold (read at restore, or written here). */
  private readonly stored = new Map<string, string>();
  /** The latest write wanted per Policy key; a newer one replaces an older one not yet sent. */
  private readonly pending = new Map<string, Op>();
  private draining: Promise<void> | undefined;
  private backoffMs = 0;
  /** Writes wait for the store's rows to be read (`startWriting`): a version the store holds is not written again. */
  private writing = false;
  private closed = false;

  constructor(
    private readonly store: LastGoodStore | undefined,
    private readonly log: Logger,
  ) {}

  get(key: string): Good | undefined {
    return this.good.get(key);
  }

  has(key: string): boolean {
    return this.good.has(key);
  }

  /** The current version compiled: it is the last good one, and is stored unless the store holds it already. */
  compiled(key: string, good: Good, bundle: Uint8Array | undefined): void {
    this.good.set(key, good);
    if (!this.store || this.stored.get(key) === good.hash) return;
    const { doc } = good.loaded;
    this.enqueue(key, {
      t: 'save',
      version: {
        namespace: doc.metadata.namespace ?? 'default',
        name: doc.metadata.name,
        document: doc,
        ...(bundle ? { bundle } : {}),
        hash: good.hash,
        generation: good.generation,
        ...(doc.metadata.resourceVersion ? { resourceVersion: doc.metadata.resourceVersion } : {}),
        ...(doc.metadata.uid ? { uid: doc.metadata.uid } : {}),
      },
    });
  }

  /** A version read from the store, for a Policy whose current version this process has not compiled. */
  restore(key: string, good: Good): void {
    this.stored.set(key, good.hash);
    if (!this.good.has(key)) this.good.set(key, good);
  }

  /** Remembers that the store holds this hash (a row read back that this process compiled too). */
  storedAs(key: string, hash: string): void {
    this.stored.set(key, hash);
  }

  /** Policies gone from the source (deleted) are no longer in force: forgotten here and in the store. */
  retain(present: ReadonlySet<string>, uidOf: (key: string) => string | undefined): void {
    for (const key of new Set([...this.good.keys(), ...this.stored.keys()])) {
      if (present.has(key)) continue;
      const uid = uidOf(key);
      this.good.delete(key);
      if (this.store && (this.stored.delete(key) || this.pending.has(key))) this.enqueue(key, { t: 'delete', uid });
    }
  }

  /** Removes a stored row whose Policy is gone (found at restore). */
  drop(key: string, uid?: string): void {
    if (this.store) this.enqueue(key, { t: 'delete', uid });
  }

  /** Starts sending the writes wanted so far and from now on (after the store's rows were read, or could not be). */
  startWriting(): void {
    this.writing = true;
    if (this.pending.size) this.kick();
  }

  /** Resolves once every write wanted so far was sent (or the versions were closed). */
  async flushed(): Promise<void> {
    while (this.draining) await this.draining;
  }

  close(): void {
    this.closed = true;
  }

  private enqueue(key: string, op: Op): void {
    this.pending.set(key, op);
    if (this.writing) this.kick();
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /** Sends the wanted writes one at a time; a failed one stays wanted (unless replaced) and is retried later. */
  private async drain(): Promise<void> {
    while (this.pending.size && !this.closed) {
      const [key, op] = this.pending.entries().next().value!;
      this.pending.delete(key);
      const [namespace, name] = splitKey(key);
      try {
        if (op.t === 'save') {
          if (this.stored.get(key) === op.version.hash) continue;
          const result = await this.store!.save(op.version);
          this.stored.set(key, op.version.hash);
          this.log.info(
            { policy: name, namespace, generation: op.version.generation, result },
            'last good policy version stored',
          );
        } else {
          await this.store!.delete(namespace, name, op.uid);
          this.stored.delete(key);
          this.log.info({ policy: name, namespace }, 'last good policy version removed');
        }
        this.backoffMs = 0;
      } catch (err) {
        if (!this.pending.has(key)) this.pending.set(key, op);
        this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, this.backoffMs * 2));
        this.log.error(
          { err, policy: name, namespace, op: op.t, retryInMs: this.backoffMs },
          'last good policy version could not be written; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, this.backoffMs).unref());
      }
    }
  }
}

/** `namespace/name`: the key of a Policy (names cannot hold a slash; namespaces neither). */
export const policyKey = (doc: PolicyResource): string => `${doc.metadata.namespace ?? 'default'}/${doc.metadata.name}`;

function splitKey(key: string): [string, string] {
  const at = key.indexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}
