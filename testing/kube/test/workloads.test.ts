/**
 * Workloads end to end with the real kubectl: a Deployment of the fixture HTTP server rolls out as three
 * processes on their own IPs behind a Service (EndpointSlice, service proxy, cluster DNS), logs, crash
 * loops, readiness, namespace deletion, and a Steward pod answering a pre-check through the API server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startTestCluster, type TestCluster } from '../cluster.js';
import { REPO_ROOT } from '../kubelet/images.js';
import { livePids } from '../kubelet/processes.js';
import type { JsonObject } from '../schema/types.js';
import { Kubectl } from './kubectl.js';
import { alive, httpContainer, IMAGES, pod, webDeployment, webService } from './workload-fixtures.js';
import { waitUntil } from '../../eventually.js';

let cluster: TestCluster;
let kubectl: Kubectl;

beforeAll(async () => {
  cluster = await startTestCluster({ workloads: { images: IMAGES, backoffBaseMs: 500 } });
  kubectl = new Kubectl(cluster.kubeconfig);
});
afterAll(async () => {
  await cluster?.close();
  kubectl?.dispose();
  expect(livePids()).toEqual([]);
});

const apply = (...objs: JsonObject[]): Promise<string> =>
  kubectl.ok(['apply', '-f', '-'], { stdin: objs.map((o) => stringify(o)).join('---\n') });
/** For kubectl commands that wait (rollout status, wait): pods take seconds to start on a busy machine. */
const LONG = { timeoutMs: 160_000 };
const raw = (path: string): Promise<string> => kubectl.ok(['get', '--raw', path]);
const podsOf = (app: string, ns = 'default'): JsonObject[] =>
  cluster.store.list('pods', { namespace: ns, labelSelector: `app=${app}` }).items;
const ip = (p: JsonObject): string => String((p.status as JsonObject).podIP);
const name = (p: JsonObject): string => String((p.metadata as JsonObject).name);

function readyEndpoints(service: string, ns = 'default'): JsonObject[] {
  return cluster.store
    .list('endpointslices.discovery.k8s.io', { namespace: ns, labelSelector: `kubernetes.io/service-name=${service}` })
    .items.flatMap((s) => (s.endpoints ?? []) as JsonObject[])
    .filter((e) => (e.conditions as JsonObject | undefined)?.ready === true);
}

describe('workloads with kubectl', { timeout: 180_000 }, () => {
  it('rolls out a Deployment of 3 as processes with distinct IPs behind a Service', async () => {
    await apply(webDeployment('web', 3), webService('web'));
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=150s'], LONG);
    const wide = (await kubectl.ok(['get', 'pods', '-l', 'app=web', '-o', 'wide', '--no-headers'])).trim().split('\n');
    expect(wide).toHaveLength(3);
    for (const line of wide)
      expect(line).toMatch(/^web-\S+\s+1\/1\s+Running\s+0\s+\S+\s+127\.77\.\d+\.\d+\s+steward-node\s/);
    expect(new Set(wide.map((l) => l.split(/\s+/)[5])).size).toBe(3);
    await waitUntil('3 ready endpoints', () => (readyEndpoints('web').length === 3 ? true : undefined));
    expect(await kubectl.ok(['get', 'nodes', '--no-headers'])).toMatch(/^steward-node\s+Ready\s/);
  });

  it('answers through the service proxy subresource, round robin over the pods', async () => {
    const answers = new Set<string>();
    for (let i = 0; i < 3; i++) answers.add(await raw('/api/v1/namespaces/default/services/web:80/proxy/'));
    expect([...answers].sort()).toEqual(
      podsOf('web')
        .map((p) => `pod ${name(p)}`)
        .sort(),
    );
    const posted = join(kubectl.home, 'body.json');
    writeFileSync(posted, '{"hello":"world"}');
    expect(
      await kubectl.ok(['create', '--raw', '/api/v1/namespaces/default/services/web:http/proxy/echo', '-f', posted]),
    ).toMatch(/^pod web-\S+ got \{"hello":"world"\}$/);
  });

  it('passes the status, headers and body of the answer through the proxy', async () => {
    const res = await fetch(`${cluster.url}/api/v1/namespaces/default/services/web/proxy/things?x=1`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-pod')).toMatch(/^web-/);
    expect(await res.text()).toMatch(/^pod web-\S+ got payload$/);
  });

  it('answers 503 through the proxy of a Service without ready endpoints', async () => {
    await apply(webService('nobody'));
    const r = await kubectl.run(['get', '--raw', '/api/v1/namespaces/default/services/nobody:80/proxy/']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no endpoints available for service "nobody"/);
  });

  it('lets pods reach a Service by name and by its environment variables', async () => {
    const first = name(podsOf('web')[0]!);
    const viaDns = await raw(
      `/api/v1/namespaces/default/pods/${first}:8080/proxy/fetch?url=${encodeURIComponent('http://web.default.svc.cluster.local/')}`,
    );
    expect(viaDns).toMatch(/^pod web-/);
    expect(
      await raw(`/api/v1/namespaces/default/pods/${first}:8080/proxy/fetch?url=${encodeURIComponent('http://web/')}`),
    ).toMatch(/^pod web-/);
    // The Service was created with the Deployment, so its pods may predate it; a new pod sees it.
    await apply(pod('client', { containers: [httpContainer()] }));
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/client', '--timeout=120s'], LONG);
    const svc = cluster.store.get('services', 'default', 'web');
    expect(await raw('/api/v1/namespaces/default/pods/client:8080/proxy/env/WEB_SERVICE_HOST')).toBe(
      (svc.spec as JsonObject).clusterIP,
    );
    expect(await raw('/api/v1/namespaces/default/pods/client:8080/proxy/env/WEB_SERVICE_PORT')).toBe('80');
  });

  it('rolls a changed env out through new processes within maxUnavailable, undoes it, and scales down', async () => {
    await apply(webDeployment('roll', 3));
    await kubectl.ok(['rollout', 'status', 'deployment/roll', '--timeout=150s'], LONG);
    const pidsOf = async () =>
      Promise.all(
        podsOf('roll').map(async (p) => Number(await raw(`/api/v1/namespaces/default/pods/${name(p)}:8080/proxy/pid`))),
      );
    const before = await pidsOf();
    // The fewest available replicas seen while the rollout runs: the default maxUnavailable of 25% rounds down to 0.
    let fewest = 3;
    const watch = cluster.store.watch('deployments.apps', { namespace: 'default' }, (ev) => {
      const o = ev.object as JsonObject;
      if ((o.metadata as JsonObject).name !== 'roll') return;
      fewest = Math.min(fewest, Number((o.status as JsonObject | undefined)?.availableReplicas ?? 0));
    });
    try {
      await kubectl.ok(['set', 'env', 'deployment/roll', 'COLOUR=blue']);
      await kubectl.ok(['rollout', 'status', 'deployment/roll', '--timeout=150s'], LONG);
    } finally {
      watch.stop();
    }
    expect(fewest).toBeGreaterThanOrEqual(3);
    await waitUntil('only the new pods left', () =>
      podsOf('roll').length === 3 && !podsOf('roll').some((p) => (p.metadata as JsonObject).deletionTimestamp)
        ? true
        : undefined,
    );
    const after = await pidsOf();
    expect(after).toHaveLength(3);
    for (const pid of after) expect(before).not.toContain(pid);
    // The old processes got SIGTERM and are gone.
    await waitUntil('the old processes to exit', () => (before.every((pid) => !alive(pid)) ? true : undefined));
    expect(await raw(`/api/v1/namespaces/default/pods/${name(podsOf('roll')[0]!)}:8080/proxy/env/COLOUR`)).toBe('blue');

    await kubectl.ok(['rollout', 'undo', 'deployment/roll']);
    await kubectl.ok(['rollout', 'status', 'deployment/roll', '--timeout=150s'], LONG);
    await waitUntil('three pods of the first template', () =>
      podsOf('roll').length === 3 && !podsOf('roll').some((p) => (p.metadata as JsonObject).deletionTimestamp)
        ? true
        : undefined,
    );
    expect(await raw(`/api/v1/namespaces/default/pods/${name(podsOf('roll')[0]!)}:8080/proxy/env/COLOUR`)).toBe('');

    const three = await pidsOf();
    await kubectl.ok(['scale', 'deployment/roll', '--replicas=1']);
    await waitUntil('one pod left', () => (podsOf('roll').length === 1 ? true : undefined));
    const kept = await pidsOf();
    expect(kept).toHaveLength(1);
    await waitUntil('two processes to exit', () =>
      three.filter((pid) => !kept.includes(pid)).every((pid) => !alive(pid)) ? true : undefined,
    );
  });

  it('deletes a Deployment with background and with foreground cascade: ReplicaSets, pods and processes go', async () => {
    for (const [app, cascade] of [
      ['bg', 'background'],
      ['fg', 'foreground'],
    ] as const) {
      await apply(webDeployment(app, 2));
      await kubectl.ok(['rollout', 'status', `deployment/${app}`, '--timeout=150s'], LONG);
      const pids = await Promise.all(
        podsOf(app).map(async (p) => Number(await raw(`/api/v1/namespaces/default/pods/${name(p)}:8080/proxy/pid`))),
      );
      await kubectl.ok(['delete', `deployment/${app}`, `--cascade=${cascade}`, '--timeout=120s'], LONG);
      await waitUntil(`${app}: pods and ReplicaSets gone`, () =>
        podsOf(app).length === 0 &&
        cluster.store.list('replicasets.apps', { namespace: 'default', labelSelector: `app=${app}` }).items.length === 0
          ? true
          : undefined,
      );
      await waitUntil(`${app}: processes gone`, () => (pids.every((pid) => !alive(pid)) ? true : undefined));
    }
  });

  it('shows container output with kubectl logs, and follows it with -f', async () => {
    const p = name(podsOf('web')[0]!);
    await raw(`/api/v1/namespaces/default/pods/${p}:8080/proxy/logged-once`);
    expect(await kubectl.ok(['logs', p])).toMatch(/^GET \/logged-once$/m);
    expect(await kubectl.ok(['logs', p, '-c', 'web', '--tail=1'])).toMatch(/^GET \/logged-once\n$/);
    const follow = kubectl.spawn(['logs', '-f', p]);
    try {
      await follow.waitFor(/listening on/, 30_000);
      await raw(`/api/v1/namespaces/default/pods/${p}:8080/proxy/followed`);
      await follow.waitFor(/GET \/followed/, 30_000);
    } finally {
      follow.child.kill();
    }
  });

  it('takes a pod whose readiness probe fails out of the EndpointSlice', async () => {
    const victim = podsOf('web')[0]!;
    await raw(`/api/v1/namespaces/default/pods/${name(victim)}:8080/proxy/unready`);
    await waitUntil('the endpoint to turn not ready', () =>
      readyEndpoints('web').some((e) => (e.addresses as string[])[0] === ip(victim)) ? undefined : true,
    );
    expect(readyEndpoints('web')).toHaveLength(2);
    expect(await kubectl.ok(['get', 'pod', name(victim), '--no-headers'])).toMatch(/\s0\/1\s+Running\s/);
    const events = await kubectl.ok([
      'get',
      'events',
      '--field-selector',
      `involvedObject.name=${name(victim)},reason=Unhealthy`,
      '-o',
      'name',
    ]);
    expect(events.trim()).not.toBe('');
  });

  it('puts a crashing container in CrashLoopBackOff and keeps its previous log', async () => {
    await apply(
      pod('crash', {
        containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'echo "crashing now"; exit 1'] }],
      }),
    );
    await waitUntil('CrashLoopBackOff', async () =>
      (await kubectl.ok(['get', 'pod', 'crash', '--no-headers'])).includes('CrashLoopBackOff') ? true : undefined,
    );
    expect(await kubectl.ok(['logs', 'crash', '--previous'])).toBe('crashing now\n');
    const described = await kubectl.ok(['describe', 'pod', 'crash']);
    expect(described).toMatch(/Back-off restarting failed container main/);
  });

  it('stops the processes of a deleted namespace', async () => {
    await kubectl.ok(['create', 'namespace', 'doomed']);
    await apply(pod('lonely', { containers: [httpContainer()] }, 'doomed'));
    await kubectl.ok(['wait', '-n', 'doomed', '--for=condition=Ready', 'pod/lonely', '--timeout=120s'], LONG);
    const addr = ip(cluster.store.get('pods', 'doomed', 'lonely'));
    expect(await (await fetch(`http://${addr}:8080/`)).text()).toBe('pod lonely');
    await kubectl.ok(['delete', 'namespace', 'doomed', '--timeout=120s'], LONG);
    // The kubelet removes a pod only once its processes are gone, and the namespace goes after its pods.
    await waitUntil('the namespace to be gone', () =>
      cluster.store.tryGet('namespaces', undefined, 'doomed') ? undefined : true,
    );
    await expect(fetch(`http://${addr}:8080/`)).rejects.toThrow();
  });

  it('runs a Steward pod that becomes Ready and answers a pre-check through the service proxy', async () => {
    await kubectl.ok([
      'create',
      'secret',
      'generic',
      'steward-license',
      '--from-literal=signing-secret=0123456789abcdef0123',
    ]);
    const steward = pod(
      'steward',
      {
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: 'steward',
            image: 'ghcr.io/steward-dev/steward:dev',
            args: ['standalone'],
            ports: [{ name: 'gateway', containerPort: 8080 }],
            env: [
              { name: 'STEWARD_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
              { name: 'STEWARD_GATEWAY_PORT', value: '8080' },
              { name: 'STEWARD_ORCHESTRATOR_PORT', value: '8081' },
              { name: 'STEWARD_DATA_DIR', value: '$(STEWARD_POD_ROOT)/var/lib/steward' },
              { name: 'STEWARD_MANIFESTS', value: join(REPO_ROOT, 'config/samples') },
              {
                name: 'STEWARD_LICENSE_SIGNING_SECRET',
                valueFrom: { secretKeyRef: { name: 'steward-license', key: 'signing-secret' } },
              },
            ],
            volumeMounts: [{ name: 'data', mountPath: '/var/lib/steward' }],
            readinessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 1, failureThreshold: 1 },
          },
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      },
      'default',
      { app: 'steward' },
    );
    await apply(steward, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'steward', namespace: 'default' },
      spec: { selector: { app: 'steward' }, ports: [{ port: 8080, targetPort: 'gateway' }] },
    });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/steward', '--timeout=150s'], LONG);
    const body = join(kubectl.home, 'pre-check.json');
    writeFileSync(
      body,
      JSON.stringify({ client_id: 'app', user_token: 'u', query: 'What is the weather?', context: {} }),
    );
    const answer = JSON.parse(
      await kubectl.ok([
        'create',
        '--raw',
        '/api/v1/namespaces/default/services/steward:8080/proxy/api/policy/pre-check',
        '-f',
        body,
      ]),
    ) as JsonObject;
    expect(answer).toMatchObject({ approved: true });
    expect(answer.context_id).toMatch(/^ctx_/);
  });
});
