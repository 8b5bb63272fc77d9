/**
 * Runs the controllers' reconcilers against the test cluster without the Manager: the manager's SharedCache with
 * the controllers' selections, an EventRecorder that records to an array, and `reconcile(controller, key)` that
 * waits for the caches to match the server first (so a second pass sees the first pass's writes, with no timing).
 */
import pino from 'pino';
import { KubeClient } from '../../../platform/kube/client.js';
import type { TestCluster } from '../../../testing/kube/index.js';
import { SharedCache } from '../../manager/cache.js';
import type { ControllerContext, ControllerSpec, EventRecorder, ReconcileResult } from '../../manager/types.js';
import { allControllers, type ControllerSettings } from '../index.js';

export interface RecordedEvent {
  kind: string;
  name: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The manager's cache, and a wait for every one of its informers to hold what the server has for its query. */
export class InformerCache extends SharedCache {
  constructor(private readonly kube: KubeClient) {
    super(kube, { backoffMs: 20, maxBackoffMs: 200 });
  }

  /**
   * Resolves when every informer holds exactly what the server lists for its namespace and selectors (same names,
   * same resourceVersions), including informers started meanwhile (a Secret a new Connector names).
   */
  async sync(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const done = new Set<object>();
    for (;;) {
      const todo = this.informers().filter((i) => !done.has(i));
      if (!todo.length) return;
      for (const informer of todo) {
        // NB: an informer stopped meanwhile (its Secret no longer named) is not waited for.
        while (this.informers().includes(informer)) {
          const server = await this.kube.list(informer.resource, informer.query);
          const cached = new Map(
            informer.list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]),
          );
          const same =
            server.items.length === cached.size &&
            server.items.every(
              (o) => cached.get(`${o.metadata.namespace}/${o.metadata.name}`) === o.metadata.resourceVersion,
            );
          if (informer.hasSynced && same) break;
          if (Date.now() > deadline) throw new Error(`informer of ${informer.resource.plural} did not catch up`);
          await new Promise((r) => setTimeout(r, 10));
        }
        done.add(informer);
      }
    }
  }
}

export interface Harness {
  cluster: TestCluster;
  /** The client the reconcilers use. */
  client: KubeClient;
  cache: InformerCache;
  ctx: ControllerContext;
  events: RecordedEvent[];
  specs: ControllerSpec[];
  /**
   * Reconciles `namespace/name` with the named controller once the caches caught up with the server; `signal` is
   * the reconcile's (default: aborted by `stop()`).
   */
  reconcile(controller: string, key: string, signal?: AbortSignal): Promise<ReconcileResult | void>;
  /** Write requests (create, update, patch, delete) the cluster has served so far. */
  writes(): number;
  /** Sets the injected clock. */
  setNow(d: Date): void;
  /** Stops the informers (the cluster is the caller's). */
  stop(): Promise<void>;
}

export async function startHarness(cluster: TestCluster, settings: ControllerSettings = {}): Promise<Harness> {
  const client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'controllers-test' });
  const cache = new InformerCache(client);
  const events: RecordedEvent[] = [];
  const recorder: EventRecorder = {
    event: (object, type, reason, message) =>
      events.push({ kind: String(object.kind), name: String(object.metadata.name), type, reason, message }),
  };
  let now = new Date();
  const log = pino({ level: 'silent' });
  const ctx: ControllerContext = { client, cache, events: recorder, now: () => now, log };
  const specs = allControllers(ctx, settings);
  cache.select(specs.flatMap((s) => s.selects ?? []));
  // Every informer a controller reads, started before the first reconcile (as the Manager does).
  for (const s of specs)
    for (const ref of [s.for, ...(s.owns ?? []), ...(s.watches ?? []).map((w) => w.resource)]) cache.informer(ref);
  const abort = new AbortController();
  return {
    cluster,
    client,
    cache,
    ctx,
    events,
    specs,
    async reconcile(controller, key, signal = abort.signal) {
      const spec = specs.find((s) => s.name === controller);
      if (!spec) throw new Error(`no controller ${controller}`);
      await cache.sync();
      const [namespace, name] = key.split('/') as [string, string];
      return spec.reconciler.reconcile({ namespace, name, key, log, signal });
    },
    writes: () => cluster.requests.count({ verb: ['create', 'update', 'patch', 'delete'] }),
    setNow: (d) => (now = d),
    async stop() {
      abort.abort();
      await cache.stop();
      await client.close();
    },
  };
}
