/**
 * Workloads for a test cluster: the simulated controllers, the kubelet (pods as processes or
 * simulated) and its Service proxies, wired to the API server's log and proxy subresources.
 */
import type { ClusterApi } from './client.js';
import type { TestClock } from './clock.js';
import { startControllers, type Controllers } from './controllers/index.js';
import type { ServerDeps } from './http/context.js';
import { startKubelet, type Kubelet } from './kubelet/index.js';

export interface WorkloadOptions {
  /** Image (with or without tag) → argv of its entrypoint. `ghcr.io/steward-dev/steward` is built in. */
  images?: Record<string, string[]>;
  /** `process` runs containers as child processes; `simulated` marks pods Running and Ready. @default 'process' */
  kubeletMode?: 'process' | 'simulated';
  /** First restart back-off (CrashLoopBackOff), doubling up to 5 min. @default 10 s */
  backoffBaseMs?: number;
  /** Where controller and kubelet problems are reported. @default silent */
  log?: (msg: string) => void;
}

export interface Workloads {
  controllers: Controllers;
  kubelet: Kubelet;
  /** Called after the store was restored or reset. */
  restored(): void;
  close(): Promise<void>;
}

export async function startWorkloads(
  c: {
    api: ClusterApi;
    clock: TestClock;
    deps: ServerDeps;
    apiServer: { host: string; port: number };
    serviceAccount?: { token: string; caCert?: string };
  },
  opts: WorkloadOptions,
): Promise<Workloads> {
  const log = opts.log ?? (() => {});
  const kubelet = await startKubelet({
    api: c.api,
    clock: c.clock,
    apiServer: c.apiServer,
    serviceAccount: c.serviceAccount,
    mode: opts.kubeletMode,
    images: opts.images,
    backoffBaseMs: opts.backoffBaseMs,
    log,
  });
  const controllers = await startControllers({ api: c.api, clock: c.clock, log });
  c.deps.logs.provider = (ns, pod, container, o) => kubelet.logs.read(ns, pod, container, o);
  c.deps.logs.follow = (ns, pod, container, sink) => kubelet.logs.follow(ns, pod, container, sink);
  c.deps.proxy = (resource, ns, name) => kubelet.network.proxyTarget(resource, ns, name);
  return {
    controllers,
    kubelet,
    restored: () => kubelet.registerNode(),
    async close() {
      await kubelet.close();
      await controllers.close();
      delete c.deps.logs.follow;
      delete c.deps.proxy;
    },
  };
}
