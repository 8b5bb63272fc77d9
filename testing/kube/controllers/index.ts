/**
 * The simulated controller manager: Deployment, ReplicaSet, Job (with the TTL-after-finished part),
 * EndpointSlice, Endpoints, disruption (PodDisruptionBudget status) and the garbage collector, each a
 * watch-driven loop over the in-process API with its own work queue. `idle()` resolves once every
 * queue is empty and no watch event is in flight, so tests wait on it instead of sleeping.
 */
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import { ControllerLoop, type ControllerDeps, type Reconciler } from './controller.js';
import { DeploymentController } from './deployment.js';
import { DisruptionController } from './disruption.js';
import { EndpointsController } from './endpoints.js';
import { EndpointSliceController } from './endpointslice.js';
import { GarbageCollector } from './gc.js';
import { JobController } from './job.js';
import { ReplicaSetController } from './replicaset.js';

export { recordEvent, type EventRecord } from './events.js';
export type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';

export interface ControllerOptions {
  api: ClusterApi;
  /** The cluster's clock: condition times, minReadySeconds, ttlSecondsAfterFinished, progress deadlines. */
  clock: TestClock;
  /** Where reconcile failures are reported. @default silent */
  log?: (msg: string) => void;
}

export interface Controllers {
  /**
   * Resolves when every queue is empty and no watch event waits to be handled. Work scheduled for
   * later (a backoff after an error, minReadySeconds, a progress deadline, a TTL) does not count.
   */
  idle(): Promise<void>;
  /** Enqueues every object again: after `clock.advance()`, so time-based work (minReadySeconds, TTLs) runs now. */
  resync(): void;
  close(): Promise<void>;
}

/** The kinds a controller needs; a controller whose kinds are not served does not start. */
function served(api: ClusterApi, resources: string[]): boolean {
  try {
    for (const r of resources) api.type(r);
    return true;
  } catch {
    return false;
  }
}

export function reconcilers(deps: ControllerDeps): Reconciler[] {
  const out: Reconciler[] = [
    new DeploymentController(deps),
    new ReplicaSetController(deps),
    new JobController(deps),
    new EndpointSliceController(deps),
    new EndpointsController(deps),
    new DisruptionController(deps),
    new GarbageCollector(deps),
  ];
  return out.filter((r) =>
    served(
      deps.api,
      r.watches.map((w) => w.resource),
    ),
  );
}

export async function startControllers(opts: ControllerOptions): Promise<Controllers> {
  const log = opts.log ?? (() => {});
  const deps: ControllerDeps = { api: opts.api, clock: opts.clock, log };
  const loops = reconcilers(deps).map((r) => new ControllerLoop(opts.api, r, log));
  for (const l of loops) l.start();
  let closed = false;
  const idle = async (): Promise<void> => {
    for (;;) {
      // NB: a macrotask turn delivers watch events of earlier writes (they arrive on microtasks).
      await new Promise<void>((resolve) => setImmediate(resolve));
      const busy = loops.filter((l) => !l.quiet);
      if (closed || busy.length === 0) return;
      await Promise.all(busy.map((l) => l.queue.whenQuiet()));
    }
  };
  await idle();
  return {
    idle,
    resync: () => {
      for (const l of loops) l.resync();
    },
    close: async () => {
      closed = true;
      for (const l of loops) l.stop();
      await Promise.resolve();
    },
  };
}
