/**
 * `startTestCluster`: the whole test API server in one call — storage, built-in kinds, CRDs, the HTTP
 * server on 127.0.0.1, a kubeconfig file, and the harness controls (faults, clock, request log,
 * snapshot/reset, compaction).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { trackUpdate } from './patch/index.js';
import { ClusterApi } from './client.js';
import { TestClock } from './clock.js';
import { CrdLifecycle } from './crd/lifecycle.js';
import { Faults, RequestLog } from './faults.js';
import type { LogProvider, ServerDeps } from './http/context.js';
import { createApiServer } from './http/server.js';
import { builtinTypes } from './kinds/index.js';
import { startWorkloads, type Workloads, type WorkloadOptions } from './workloads.js';
import { kubeconfigYaml, selfSignedCertificate, TEST_TOKEN, writeKubeconfig } from './kubeconfig.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { Registry } from './registry.js';
import { isObject, type JsonObject } from './schema/types.js';
import { metaOf, ObjectStore } from './store/objects.js';
import { VersionedStore, type VersionedSnapshot } from './store/versioned.js';
import { WatchRegistry } from './store/watch.js';

export interface TestClusterOptions {
  /** CRDs to install at start: a folder of YAML/JSON files, or the CRD objects themselves. */
  crds?: string | JsonObject[];
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /** Where to write the kubeconfig. @default a file in a fresh temporary folder (removed by close) */
  kubeconfigPath?: string;
  /** Serve HTTPS: `true` makes a self-signed certificate (needs openssl), or pass key and cert. */
  tls?: boolean | { key: string | Buffer; cert: string | Buffer };
  /** Events kept for watch replay; older resourceVersions answer 410 Expired. @default 5000 */
  historyLimit?: number;
  /** Run the namespace controller (deleting a namespace deletes its contents). @default true */
  namespaceController?: boolean;
  /** Extra namespaces to create at start (default, kube-system, kube-public, kube-node-lease always exist). */
  namespaces?: string[];
  /** Watches without timeoutSeconds end after this. @default 30 min */
  watchTimeoutMs?: number;
  /** BOOKMARK interval for watches that allow them. @default 60 s */
  bookmarkIntervalMs?: number;
  /**
   * Run workloads: the simulated controllers (Deployment, ReplicaSet, EndpointSlice, GC...), a kubelet
   * that runs pods as local processes (or simulates them) and Service proxies. @default false
   */
  workloads?: boolean | WorkloadOptions;
}

export interface Snapshot {
  readonly state: VersionedSnapshot;
}

export interface TestCluster {
  /** Path of the kubeconfig file. */
  kubeconfig: string;
  /** The kubeconfig's text. */
  kubeconfigYaml: string;
  url: string;
  port: number;
  close(): Promise<void>;
  faults: Faults;
  clock: TestClock;
  requests: RequestLog;
  /** The in-process API (no HTTP). */
  store: ClusterApi;
  registry: Registry;
  /** Supplies pod logs for GET pods/{name}/log. */
  setLogProvider(p: LogProvider | undefined): void;
  snapshot(): Snapshot;
  /** Restores a snapshot; open watches end and clients re-list (their old resourceVersions expire). */
  restore(s: Snapshot): void;
  /** Back to the state right after start (CRDs from options included). */
  reset(): void;
  /** Forgets watch history up to `resourceVersion` (default: all), so older watches get 410. */
  compact(resourceVersion?: number): void;
  /** Waits until background work (CRD and namespace cleanup) has settled. */
  idle(): Promise<void>;
  /** Ends open watches (all, or of one resource such as `configmaps` or `widgets.example.com`) as a server would. */
  closeWatches(resource?: string): void;
  /** Number of open watches (HTTP and in-process). */
  openWatches(): number;
  /** The controllers and kubelet, when started with `workloads`. */
  workloads: Workloads | undefined;
}

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function loadCrdFiles(dir: string): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  const files = (await readdir(dir)).filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f))).sort();
  for (const f of files) {
    const text = await readFile(join(dir, f), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length) throw new Error(`${f}: ${doc.errors[0]!.message}`);
      const v = doc.toJSON() as unknown;
      if (isObject(v) && v.kind === 'CustomResourceDefinition') out.push(v);
    }
  }
  return out;
}

export async function startTestCluster(opts: TestClusterOptions = {}): Promise<TestCluster> {
  const clock = new TestClock();
  const registry = new Registry();
  for (const t of builtinTypes()) registry.add(t);
  const versioned = new VersionedStore(opts.historyLimit ?? 5000);
  const store = new ObjectStore(registry, versioned, clock);
  store.managedFields = ({ type, old, updated, manager, userAgent, subresource }) => {
    const name = manager || userAgent?.split('/')[0] || 'unknown';
    const entries = trackUpdate(old ?? null, updated, name, {
      kind: { group: type.group, version: type.version, kind: type.kind, builtin: type.builtin },
      schema: type.builtin ? undefined : type.schema,
      subresource,
      statusSubresource: type.subresources.status,
      now: () => new Date(clock.now()),
    });
    if (entries.length) metaOf(updated).managedFields = entries;
    else delete metaOf(updated).managedFields;
  };
  const watches = new WatchRegistry();
  const crdLifecycle = new CrdLifecycle(store, registry, watches);
  const nsLifecycle = new NamespaceLifecycle(store, registry, opts.namespaceController ?? true);
  const api = new ClusterApi(store, registry, watches);

  for (const name of [...INITIAL_NAMESPACES, ...(opts.namespaces ?? [])]) {
    api.create(
      'namespaces',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { fieldManager: 'kube-apiserver' },
    );
  }
  const crds = typeof opts.crds === 'string' ? await loadCrdFiles(opts.crds) : (opts.crds ?? []);
  for (const crd of crds)
    api.create('customresourcedefinitions.apiextensions.k8s.io', crd, { fieldManager: 'steward-test' });
  const initial: Snapshot = { state: versioned.snapshot() };

  const requests = new RequestLog();
  const faults = new Faults();
  const logs: ServerDeps['logs'] = {};
  const deps: ServerDeps = {
    registry,
    store,
    watches,
    faults,
    logs,
    defaultWatchTimeoutMs: opts.watchTimeoutMs ?? 30 * 60_000,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
  };
  const tls = opts.tls === true ? await selfSignedCertificate() : opts.tls || undefined;
  const server = createApiServer(deps, { tls, requests });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const tmp = opts.kubeconfigPath ? undefined : await mkdtemp(join(tmpdir(), 'kube-test-'));
  const kubeconfig = opts.kubeconfigPath ?? join(tmp!, 'kubeconfig');
  await writeKubeconfig(kubeconfig, url);

  const workloads = opts.workloads
    ? await startWorkloads(
        {
          api,
          clock,
          deps,
          apiServer: { host: '127.0.0.1', port },
          serviceAccount: { token: TEST_TOKEN, caCert: tls ? String(tls.cert) : undefined },
        },
        opts.workloads === true ? {} : opts.workloads,
      )
    : undefined;

  const restore = (s: Snapshot): void => {
    watches.closeAll();
    versioned.restore(s.state);
    crdLifecycle.resync();
    workloads?.restored();
  };
  let closed = false;
  return {
    kubeconfig,
    kubeconfigYaml: kubeconfigYaml(url),
    url,
    port,
    faults,
    clock,
    requests,
    store: api,
    registry,
    setLogProvider: (p) => {
      logs.provider = p;
    },
    snapshot: () => ({ state: versioned.snapshot() }),
    restore,
    reset: () => {
      faults.clear();
      requests.clear();
      restore(initial);
    },
    compact: (rv) => versioned.compact(rv),
    closeWatches: (resource) =>
      watches.closeAll(resource === undefined ? undefined : registry.resolve(resource).storageKey),
    openWatches: () => watches.size,
    workloads,
    idle: async () => {
      await crdLifecycle.idle();
      await nsLifecycle.idle();
      await workloads?.controllers.idle();
    },
    async close() {
      if (closed) return;
      closed = true;
      // The kubelet first: every process is gone before the API server stops answering.
      await workloads?.close();
      crdLifecycle.stop();
      nsLifecycle.stop();
      watches.closeAll();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (tmp) await rm(tmp, { recursive: true, force: true });
    },
  };
}
