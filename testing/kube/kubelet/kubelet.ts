/**
 * The kubelet: registers the node, schedules pods onto it, and runs each bound pod — as local processes
 * (`process` mode) or by marking it Running and Ready (`simulated` mode). Deleted pods are stopped, then
 * removed with grace period 0, as a real kubelet confirms a deletion.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { kubeletEvents } from './events.js';
import { Informer, keyOf } from './informer.js';
import { LogStore } from './logs.js';
import { Network } from './network.js';
import { NODE_IP, registerNode } from './node.js';
import { PodWorker } from './pod-worker.js';
import { DNS_PRELOAD } from './preload-path.js';
import { schedule } from './scheduler.js';
import { simulatedStatus } from './simulated.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});

export interface KubeletOptions {
  api: ClusterApi;
  clock: TestClock;
  /** Where the API server listens, for KUBERNETES_SERVICE_HOST/PORT in containers. */
  apiServer: { host: string; port: number };
  /**
   * What pods find at /var/run/secrets/kubernetes.io/serviceaccount (under STEWARD_POD_ROOT): `token`,
   * `namespace`, and `ca.crt` when the API server speaks TLS. Absent: no service account is mounted.
   */
  serviceAccount?: { token: string; caCert?: string };
  /** `process`: containers are child processes; `simulated`: pods go Running and Ready without any. @default 'process' */
  mode?: 'process' | 'simulated';
  /** Image (with or without tag) → argv of its entrypoint, besides the built-in Steward image. */
  images?: Record<string, string[]>;
  /** First restart back-off; doubles up to `backoffMaxMs`. @default 10 s */
  backoffBaseMs?: number;
  /** @default 5 min */
  backoffMaxMs?: number;
  /** @default 'steward-node' */
  nodeName?: string;
  /** Longest a container gets to stop when the kubelet closes. @default 10 s */
  closeGraceMs?: number;
  log?: (msg: string) => void;
}

export interface Kubelet {
  readonly logs: LogStore;
  readonly network: Network;
  /** Registers the node again (after cluster.reset/restore dropped it). */
  registerNode(): void;
  /** Stops every pod's processes, the service proxies, and the watches. */
  close(): Promise<void>;
}

/**
 * Pod IPs from 127.77.0.0/16, never reused within a process. NB: each process starts at its own block of
 * 1016 addresses (by pid), so test files running in parallel (or a leaked process of an earlier run)
 * do not hand out the same address.
 */
let ipCounter = (process.pid % 64) * 4 * 254;
function nextPodIP(): string {
  const n = ipCounter++;
  return `127.77.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

export async function startKubelet(opts: KubeletOptions): Promise<Kubelet> {
  const { api, clock } = opts;
  const node = opts.nodeName ?? 'steward-node';
  const log = opts.log ?? (() => {});
  const mode = opts.mode ?? 'process';
  const root = await mkdtemp(join(tmpdir(), 'steward-kubelet-'));
  const logs = new LogStore();
  const record = kubeletEvents(api, clock, node, 'kubelet', log);
  const schedulerEvents = kubeletEvents(api, clock, node, 'default-scheduler', log);
  const network = new Network(api, join(root, 'hosts.json'), log);
  const workers = new Map<string, PodWorker>();
  registerNode(api, clock, node);

  const baseEnv = (namespace: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    KUBERNETES_SERVICE_HOST: opts.apiServer.host,
    KUBERNETES_SERVICE_PORT: String(opts.apiServer.port),
    STEWARD_KUBE_HOSTS: join(root, 'hosts.json'),
    STEWARD_KUBE_NAMESPACE: namespace,
    NODE_OPTIONS: `--import=${DNS_PRELOAD}`,
  });

  /** Stops the pod's containers, then confirms the deletion (grace 0) if the object still exists. */
  const terminate = async (w: PodWorker, graceMs: number, uid: unknown): Promise<void> => {
    await w.stop(graceMs);
    const current = api.tryGet('pods', w.namespace, w.name);
    if (current && o(current.metadata).uid === uid) {
      try {
        api.delete('pods', w.namespace, w.name, { gracePeriodSeconds: 0, preconditions: { uid: String(uid) } });
      } catch (err) {
        log(`pod ${w.namespace}/${w.name} not deleted: ${(err as Error).message}`);
      }
    }
  };

  const podChanged = (change: 'upsert' | 'delete', pod: JsonObject): void => {
    const key = keyOf(pod);
    const meta = o(pod.metadata);
    const spec = o(pod.spec);
    if (change === 'upsert' && !spec.nodeName) return schedule(api, clock, node, pod, schedulerEvents);
    if (spec.nodeName !== node) return;
    let w = workers.get(key);
    if (w && o(meta).uid !== w.uid) {
      // The same name, a new pod: the old one is gone.
      void w.stop(0);
      workers.delete(key);
      w = undefined;
    }
    if (change === 'delete') {
      if (w) {
        const gone = w;
        workers.delete(key);
        void gone.stop(gone.graceMs).then(() => logs.forgetPod(gone.namespace, gone.name));
      }
      return;
    }
    if (mode === 'simulated') return simulated(pod);
    if (!w) {
      const phase = o(pod.status).phase;
      if (meta.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') {
        if (meta.deletionTimestamp)
          api.delete('pods', String(meta.namespace), String(meta.name), { gracePeriodSeconds: 0 });
        return;
      }
      w = new PodWorker(pod, spec.hostNetwork === true ? NODE_IP : nextPodIP(), {
        api,
        clock,
        node,
        nodeIP: NODE_IP,
        images: opts.images ?? {},
        backoffBaseMs: opts.backoffBaseMs ?? 10_000,
        backoffMaxMs: opts.backoffMaxMs ?? 300_000,
        logs,
        record,
        dir: join(root, 'pods', String(meta.uid)),
        baseEnv,
        serviceVars: (ns) => network.serviceVars(ns),
        log,
        serviceAccount: opts.serviceAccount,
      });
      workers.set(key, w);
      const started = w;
      void started.start().catch((err: Error) => log(`pod ${key} failed to start: ${err.stack ?? err.message}`));
    }
    w.update(pod);
    if (meta.deletionTimestamp && !w.terminating) {
      const grace = Number(meta.deletionGracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30) * 1000;
      void terminate(w, grace, meta.uid);
    }
  };

  const simulated = (pod: JsonObject): void => {
    const meta = o(pod.metadata);
    if (meta.deletionTimestamp) {
      api.delete('pods', String(meta.namespace), String(meta.name), { gracePeriodSeconds: 0 });
      return;
    }
    if (o(pod.status).podIP) return;
    api.patch(
      'pods',
      String(meta.namespace),
      String(meta.name),
      { status: simulatedStatus(pod, nextPodIP(), NODE_IP, clock.nowIso()) },
      { subresource: 'status', fieldManager: 'kubelet' },
    );
  };

  const pods = new Informer(api, 'pods', {}, (change, pod) => {
    try {
      podChanged(change, pod);
    } catch (err) {
      log(`pod ${keyOf(pod)}: ${(err as Error).message}`);
    }
  });
  if (mode === 'process') network.start();
  pods.start();

  return {
    logs,
    network,
    registerNode: () => registerNode(api, clock, node),
    async close() {
      pods.stop();
      const cap = opts.closeGraceMs ?? 10_000;
      await Promise.all([...workers.values()].map((w) => w.stop(Math.min(cap, w.graceMs))));
      workers.clear();
      await network.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
