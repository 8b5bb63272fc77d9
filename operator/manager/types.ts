/**
 * The contract between the manager (work queues, informers, leader election) and the controllers.
 * A reconciler is small (STYLE.md habit 1): `reconcile(ctx)` re-reads its object by key from the cache,
 * computes the desired state (a pure `desired.ts`), applies it, writes status, and throws to be retried
 * with back-off. `TerminalError` is an error no retry can fix: it is logged and not retried until the
 * object (or something it watches) changes.
 */
import type { Logger } from 'pino';
import type { InformerListener } from '../../platform/kube/informer.js';
import type { KubeClient, KubeObject } from '../../platform/kube/client.js';
import type { ResourceRef } from '../../platform/kube/resources.js';

export interface ReconcileRequest {
  namespace: string;
  name: string;
  /** `namespace/name`. */
  key: string;
  /** Bound with controller, namespace, name and reconcileId. */
  log: Logger;
  /**
   * Aborted when the manager stops or loses leadership. Pass it to every KubeClient call (and Event) the reconcile
   * makes: once aborted they reject with `Aborted` (`isAborted`) instead of writing as a replica that no longer leads.
   */
  signal: AbortSignal;
}

export interface ReconcileResult {
  /** Reconcile this key again after this long even if nothing changes (e.g. at a License's expiry). */
  requeueAfterMs?: number;
}

export interface Reconciler {
  reconcile(req: ReconcileRequest): Promise<ReconcileResult | void>;
}

export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** What the cache holds of one resource: one informer's objects, or the union of the informers of its selections. */
export interface ResourceCache<T extends KubeObject = KubeObject> {
  readonly resource: ResourceRef;
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string): T[];
  /** Subscribes to changes; objects already cached are not replayed (read `list()` for them). */
  on(listener: InformerListener<T>): () => void;
  /** Every informer of it has its first list. */
  readonly hasSynced: boolean;
  synced(): Promise<void>;
}

/** Read access to the manager's shared informers (one per resource type, started on first use). */
export interface Cache {
  informer<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceCache<T>;
  get<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string, name: string): T | undefined;
  list<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace?: string): T[];
}

/** What a user should see with `kubectl describe`. */
export interface EventRecorder {
  /** `signal`: the reconcile's; the Event is dropped once it aborts. */
  event(object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, signal?: AbortSignal): void;
}

/** Everything a controller factory gets from the manager. */
export interface ControllerContext {
  client: KubeClient;
  cache: Cache;
  events: EventRecorder;
  /** Injected so tests control time (License expiry). */
  now: () => Date;
  log: Logger;
  /** The operator's settings controllers need (cmd/config/operator-env.ts); absent in tests that need none. */
  settings?: ControllerSettings;
}

/** Operator settings passed to the controllers (from cmd/config/operator-env.ts). */
export interface ControllerSettings {
  /**
   * Image of the runtime pods (STEWARD_DEFAULT_IMAGE) when an Orchestrator keeps the schema's default image;
   * absent: that default.
   */
  defaultImage?: string;
  /** Signs and verifies License keys (STEWARD_LICENSE_SIGNING_SECRET), copied into each `O-internal`; absent: every License is invalid. */
  licenseSigningSecret?: string;
  /** The one namespace watched (STEWARD_WATCH_NAMESPACE); absent: every namespace. */
  watchNamespace?: string;
}

/**
 * Which objects of a resource the cache holds, when not every one (controller-runtime's `cache.Options.ByObject`).
 * Once a controller selects a resource, the cache holds only the union of its selections: every controller that
 * owns, watches or reads that resource must select what it needs.
 */
export type Selection = LabelSelection | NameSelection;

export interface LabelSelection {
  resource: ResourceRef;
  /** One list and watch with this label selector (the objects the operator makes carry its labels). */
  labelSelector: string;
}

export interface NameSelection {
  resource: ResourceRef;
  /**
   * The objects that objects of `namedBy` name, in their namespace: one list and watch per name
   * (`fieldSelector=metadata.name=N`), started when the first object names it and stopped when the last one no
   * longer does, as the kubelet watches the Secrets its pods use.
   */
  namedBy: ResourceRef;
  /** The names `obj` refers to; [] when it refers to none (or does not parse). */
  names: (obj: KubeObject) => string[];
}

export interface Watch {
  resource: ResourceRef;
  /** The primary keys (`namespace/name`) to reconcile when this object changes. */
  map: (obj: KubeObject) => string[];
}

/** Observes one reconcile's duration, in seconds (the metrics' histogram of one controller, its labels bound). */
export type ReconcileTimer = (seconds: number) => void;

/**
 * What the manager reports to metrics as it happens; everything else (counts, queue depths, leadership) is read
 * from `Manager` at scrape time.
 */
export interface ManagerMetrics {
  /** Called once per controller, when it is added. */
  reconcileTimer(controller: string): ReconcileTimer;
}

export interface ControllerSpec {
  /** `orchestrator`, `agentconfig`, ... (log field and metric label). */
  name: string;
  /** The primary resource: its changes enqueue its own key. */
  for: ResourceRef;
  /** Owned resources: a change enqueues the owner named by the controller ownerReference of `for.kind`. */
  owns?: readonly ResourceRef[];
  /** Other resources whose changes map to primary keys. */
  watches?: Watch[];
  /** What of the resources it reads the cache must hold, when not every object (see `Selection`). */
  selects?: readonly Selection[];
  reconciler: Reconciler;
  /** Keys reconciled at once. @default 4 */
  concurrency?: number;
}
