/**
 * The operator's memory with the cluster's other objects (issue 33, item 6; docs/adr/0015): the part of
 * `npm run bench -- operator` that checks that 5,000 unrelated Pods and 2,000 unrelated Secrets leave the
 * operator's memory within 10 % of what it is on an empty cluster.
 *
 * Method. The test API server runs in this process; the operator runs in a child process of its own
 * (bench/operator-process.ts: `steward operator`, the five controllers, leader election off, `--expose-gc`), so
 * that its memory is measured apart from the server's. Its measure is the V8 heap in use after three full
 * collections (`heapUsed`, what the operator keeps alive: the informers' caches, queues, parsed objects), the
 * median of five readings 300 ms apart; resident memory (RSS) is shown beside it, but it also holds freed pages the
 * allocator has not returned and moves by megabytes on its own. The cluster holds one Orchestrator (community
 * mode, its database URL in a Secret) and one Connector (its URL in another Secret) in namespace `bench`. The
 * unrelated objects are written straight into the server's store: Pods (two containers with env, probes,
 * resources, volumes, an owner, labels and annotations; about 3 KB stored) and Secrets (TLS-shaped, about 4 KB;
 * every 20th a Helm release of about 24 KB), spread over `bench` and ten other namespaces. The operator has
 * received everything sent before them once a marker Secret (one the Connector names, changed) and a marker gateway
 * Pod, written after them, are in its cache. Rows: the operator on the empty cluster; the same process after the
 * load; a new process started on the loaded cluster (its first lists); and, for reference, the operator without
 * its cache selections (as before ADR 0015) on the empty and on the loaded cluster.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestCluster, type TestCluster } from '../testing/kube/index.js';
import type { ChildMessage, ParentMessage } from './operator-process.js';
import { NODE_FLAGS } from './report.js';

const PODS = Number(process.env.BENCH_OPERATOR_PODS ?? 5000);
const SECRETS = Number(process.env.BENCH_OPERATOR_SECRETS ?? 2000);
const NS = 'bench';
const NAMESPACES = [NS, ...Array.from({ length: 10 }, (_, i) => `noise-${i}`)];
const TARGET = 0.1;

type Memory = Extract<ChildMessage, { type: 'memory' }>;

/** One operator process; messages are answered in order. */
class OperatorProcess {
  private readonly child: ChildProcess;
  private readonly waiting: ((m: ChildMessage) => void)[] = [];
  readonly ready: Promise<void>;

  constructor(kubeconfig: string, selected: boolean) {
    this.child = fork(new URL('./operator-process.ts', import.meta.url).pathname, [], {
      execArgv: ['--expose-gc', ...NODE_FLAGS, '--import', 'tsx'],
      env: { ...process.env, BENCH_KUBECONFIG: kubeconfig, BENCH_OPERATOR_UNSELECTED: selected ? '' : '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`the operator process exited (${code})`)));
      this.child.on('message', (m: ChildMessage) => (m.type === 'ready' ? resolve() : this.waiting.shift()?.(m)));
    });
  }

  ask<T extends ChildMessage>(m: ParentMessage): Promise<T> {
    return new Promise((resolve) => {
      this.waiting.push(resolve as (m: ChildMessage) => void);
      this.child.send(m);
    });
  }

  /** The median of five readings, 300 ms apart. */
  async memory(): Promise<Memory> {
    const readings: Memory[] = [];
    for (let i = 0; i < 5; i++) {
      readings.push(await this.ask<Memory>({ type: 'measure' }));
      await sleep(300);
    }
    const median = (pick: (m: Memory) => number) => readings.map(pick).sort((a, b) => a - b)[2]!;
    return { ...readings[4]!, heapUsed: median((m) => m.heapUsed), rss: median((m) => m.rss) };
  }

  /** Waits until the operator's cache holds `name` at `resourceVersion`. */
  async sees(resource: 'secrets' | 'pods', name: string, resourceVersion: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const got = await this.ask<Extract<ChildMessage, { type: 'object' }>>({
        type: 'get',
        resource,
        namespace: NS,
        name,
      });
      if (got.resourceVersion === resourceVersion) return;
      if (Date.now() > deadline) throw new Error(`the operator did not see ${resource}/${name}@${resourceVersion}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies ParentMessage);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (s: string) => Buffer.from(s).toString('base64');
const rv = (o: unknown) => String((o as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

function stewardObjects(cluster: TestCluster): void {
  const store = cluster.store;
  const secret = (name: string, url: string) =>
    store.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: NS },
      data: { url: b64(url) },
    });
  secret('bench-db', 'postgres://db.bench.svc:5432/steward');
  secret('orders-db', 'postgres://orders.bench.svc:5432/orders');
  store.create('orchestrators.steward.dev', {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Orchestrator',
    metadata: { name: 'bench', namespace: NS },
    spec: { communityMode: true, database: { secretRef: { name: 'bench-db', key: 'url' } } },
  });
  store.create('connectors.steward.dev', {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Connector',
    metadata: { name: 'orders', namespace: NS },
    spec: { type: 'postgres', connection: { secretRef: { name: 'orders-db', key: 'url' } } },
  });
}

function unrelatedPod(i: number): Record<string, unknown> {
  const app = `app-${i % 40}`;
  const hash = (i % 97).toString(16).padStart(8, '0');
  const env = Array.from({ length: 8 }, (_, k) => ({ name: `SETTING_${k}`, value: `value-${i}-${k}` }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-${hash}-${i.toString(36)}`,
      namespace: NAMESPACES[i % NAMESPACES.length],
      labels: { app, 'pod-template-hash': hash, tier: i % 2 ? 'frontend' : 'backend', release: `r${i % 20}` },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'example.com/revision': `${i}` },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-${hash}`, uid: randomUUID(), controller: true },
      ],
    },
    spec: {
      nodeName: `node-${i % 50}`,
      serviceAccountName: app,
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
      containers: [
        {
          name: 'main',
          image: `registry.example.com/${app}:1.${i % 10}.0`,
          ports: [{ name: 'http', containerPort: 8080 }],
          env,
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
        },
        { name: 'proxy', image: 'registry.example.com/proxy:2.0', ports: [{ containerPort: 15001 }] },
      ],
    },
  };
}

function unrelatedSecret(i: number): Record<string, unknown> {
  const metadata = { name: `unrelated-${i}`, namespace: NAMESPACES[(i * 7) % NAMESPACES.length] };
  if (i % 20 === 0)
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata,
      type: 'helm.sh/release.v1',
      data: { release: randomBytes(18_000).toString('base64') },
    };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': randomBytes(1_200).toString('base64'), 'tls.key': randomBytes(1_700).toString('base64') },
  };
}

/** Runs the memory part; its markdown is a subsection of the operator's section of docs/benchmarks.md. */
export async function memory(): Promise<string> {
  const cluster = await startTestCluster({ crds: 'crds/', namespaces: NAMESPACES });
  const running: OperatorProcess[] = [];
  const start = async (selected: boolean) => {
    const p = new OperatorProcess(cluster.kubeconfig, selected);
    running.push(p);
    await p.ready;
    return p;
  };
  const stop = async (p: OperatorProcess) => {
    running.splice(running.indexOf(p), 1);
    await p.stop();
  };
  try {
    stewardObjects(cluster);
    const rows: { label: string; m: Memory }[] = [];
    // The empty cluster: the operator has made the Orchestrator's objects and settled.
    const settle = async (p: OperatorProcess) => {
      await sleep(3000);
      return p.memory();
    };
    const selected = await start(true);
    const internal = () => rv(cluster.store.get('secrets', NS, 'bench-internal'));
    for (let t = Date.now(); !cluster.store.tryGet('secrets', NS, 'bench-internal');) {
      if (Date.now() - t > 60_000) throw new Error('the operator made no bench-internal Secret');
      await sleep(50);
    }
    await selected.sees('secrets', 'bench-internal', internal());
    const empty = await settle(selected);
    rows.push({ label: 'empty cluster', m: empty });
    const reference = await start(false);
    const referenceEmpty = await settle(reference);
    await stop(reference);

    const t0 = performance.now();
    for (let i = 0; i < PODS; i++) cluster.store.create('pods', unrelatedPod(i));
    for (let i = 0; i < SECRETS; i++) cluster.store.create('secrets', unrelatedSecret(i));
    const loadS = (performance.now() - t0) / 1000;
    const marker = cluster.store.patch('secrets', NS, 'orders-db', {
      data: { url: b64('postgres://orders-2/orders') },
    });
    const gateway = cluster.store.create('pods', {
      ...unrelatedPod(PODS),
      metadata: {
        name: 'marker-gateway',
        namespace: NS,
        labels: { 'app.kubernetes.io/name': 'steward', 'app.kubernetes.io/component': 'gateway' },
      },
    });
    await selected.sees('secrets', 'orders-db', rv(marker));
    await selected.sees('pods', 'marker-gateway', rv(gateway));
    rows.push({ label: `+ ${PODS} Pods and ${SECRETS} Secrets, same process`, m: await settle(selected) });
    await stop(selected);
    const restarted = await start(true);
    rows.push({ label: 'started on the loaded cluster', m: await settle(restarted) });
    await stop(restarted);
    const referenceLoaded = await start(false);
    const referenceRow = await settle(referenceLoaded);
    await stop(referenceLoaded);

    const mb = (n: number) => (n / 2 ** 20).toFixed(1);
    const pct = (n: number, base: number) => `${n >= base ? '+' : ''}${(((n - base) / base) * 100).toFixed(1)} %`;
    const worst = Math.max(...rows.slice(1).map((r) => (r.m.heapUsed - empty.heapUsed) / empty.heapUsed));
    const line = (label: string, m: Memory, base: Memory) =>
      `| ${label} | ${m.secrets} | ${m.pods} | ${mb(m.heapUsed)} MB (${pct(m.heapUsed, base.heapUsed)}) | ${mb(m.rss)} MB (${pct(m.rss, base.rss)}) |`;
    return `### Memory with the cluster's other Pods and Secrets (issue 33; ADR 0015)

Method: bench/operator-memory.ts header. ${PODS} Pods and ${SECRETS} Secrets written in ${loadS.toFixed(1)} s; the operator in a child process, \`node ${['--expose-gc', ...NODE_FLAGS].join(' ')}\`; heap in use after full collections, median of 5.

| Operator | Secrets cached | Pods cached | heap after GC (vs empty) | RSS (vs empty) |
|---|---:|---:|---:|---:|
${rows.map((r) => line(r.label, r.m, empty)).join('\n')}
| reference, no selections (before ADR 0015): empty cluster | ${referenceEmpty.secrets} | ${referenceEmpty.pods} | ${mb(referenceEmpty.heapUsed)} MB | ${mb(referenceEmpty.rss)} MB |
| reference, no selections: started on the loaded cluster | ${referenceRow.secrets} | ${referenceRow.pods} | ${mb(referenceRow.heapUsed)} MB (${pct(referenceRow.heapUsed, referenceEmpty.heapUsed)}) | ${mb(referenceRow.rss)} MB (${pct(referenceRow.rss, referenceEmpty.rss)}) |

Heap after GC with the load, worst row: **${worst >= 0 ? '+' : ''}${(worst * 100).toFixed(1)} %** against the empty cluster (target: within ${TARGET * 100} %: ${worst <= TARGET ? 'met' : 'not met'}).
`;
  } finally {
    await Promise.all(running.map((p) => p.stop()));
    await cluster.close();
  }
}
