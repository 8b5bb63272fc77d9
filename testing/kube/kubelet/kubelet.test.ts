/**
 * The kubelet in process mode against the in-process API: pods become Running with their own IPs,
 * environments and volumes; crashing containers back off; deletion stops processes; logs are kept.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../cluster.js';
import type { JsonObject } from '../schema/types.js';
import { httpContainer, IMAGES, pod } from '../test/workload-fixtures.js';
import { waitUntil } from '../../eventually.js';
import { livePids } from './processes.js';

let cluster: TestCluster;
const dir = mkdtempSync(join(tmpdir(), 'kubelet-test-'));

beforeAll(async () => {
  cluster = await startTestCluster({ workloads: { images: IMAGES, backoffBaseMs: 200 } });
});
afterAll(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
  expect(livePids()).toEqual([]);
});

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

const status = (name: string, ns = 'default'): JsonObject =>
  (cluster.store.tryGet('pods', ns, name)?.status ?? {}) as JsonObject;
const ready = (name: string, ns = 'default'): boolean =>
  ((status(name, ns).conditions ?? []) as JsonObject[]).some((c) => c.type === 'Ready' && c.status === 'True');
const containerStatus = (name: string): JsonObject => ((status(name).containerStatuses ?? []) as JsonObject[])[0] ?? {};

describe('kubelet (process mode)', { timeout: 120_000 }, () => {
  it('registers a Ready node and binds pods to it', async () => {
    const node = cluster.store.get('nodes', undefined, 'steward-node');
    expect((node.status as JsonObject).conditions).toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    );
    cluster.store.create('pods', pod('bound', { containers: [httpContainer()] }));
    await waitUntil(
      'the pod to be bound',
      () => (cluster.store.get('pods', 'default', 'bound').spec as JsonObject).nodeName as string | undefined,
    );
    const events = cluster.store
      .list('events', { namespace: 'default', fieldSelector: 'involvedObject.name=bound' })
      .items.map((e) => e.reason);
    expect(events).toContain('Scheduled');
  });

  it('runs a pod as a process on its own IP with env from a Secret, a ConfigMap and the pod fields', async () => {
    cluster.store.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'default' },
      data: { token: Buffer.from('s3cret').toString('base64') },
    });
    cluster.store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'conf', namespace: 'default' },
      data: { greeting: 'hello', 'app.conf': 'x=1' },
    });
    const c = httpContainer();
    c.env = [
      ...(c.env as JsonObject[]),
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
      { name: 'MESSAGE', value: '$(GREETING) from $(POD_NAME)' },
    ];
    c.envFrom = [{ configMapRef: { name: 'conf' }, prefix: '' }];
    c.volumeMounts = [{ name: 'conf', mountPath: '/etc/app' }];
    cluster.store.create(
      'pods',
      pod('envy', {
        containers: [
          {
            ...c,
            env: [
              { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'conf', key: 'greeting' } } },
              ...(c.env as JsonObject[]),
            ],
          },
        ],
        volumes: [{ name: 'conf', configMap: { name: 'conf' } }],
      }),
    );
    await waitUntil('envy Ready', () => ready('envy') || undefined);
    const ip = String(status('envy').podIP);
    expect(ip).toMatch(/^127\.77\.\d+\.\d+$/);
    expect(status('envy').phase).toBe('Running');
    expect((await get(`http://${ip}:8080/`)).body).toBe('pod envy');
    expect((await get(`http://${ip}:8080/env/TOKEN`)).body).toBe('s3cret');
    expect((await get(`http://${ip}:8080/env/MESSAGE`)).body).toBe('hello from envy');
    const root = (await get(`http://${ip}:8080/env/STEWARD_POD_ROOT`)).body;
    expect(readFileSync(`${root}/etc/app/app.conf`, 'utf8')).toBe('x=1');
  });

  it('keeps stdout as the container log', async () => {
    await waitUntil('envy Ready', () => ready('envy') || undefined);
    const ip = String(status('envy').podIP);
    await get(`http://${ip}:8080/logged`);
    await waitUntil(
      'the request line in the log',
      () => cluster.workloads!.kubelet.logs.read('default', 'envy', 'web', {})?.includes('GET /logged') || undefined,
    );
  });

  it('restarts a crashing container with back-off (CrashLoopBackOff) and keeps the previous log', async () => {
    cluster.store.create(
      'pods',
      pod('crash', { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo boom; exit 1'] }] }),
    );
    await waitUntil('CrashLoopBackOff', () => {
      const cs = containerStatus('crash');
      return (cs.state as JsonObject | undefined)?.waiting &&
        ((cs.state as JsonObject).waiting as JsonObject).reason === 'CrashLoopBackOff' &&
        Number(cs.restartCount) >= 2
        ? cs
        : undefined;
    });
    const cs = containerStatus('crash');
    expect((cs.lastState as JsonObject).terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(cluster.workloads!.kubelet.logs.read('default', 'crash', 'main', { previous: true })).toBe('boom\n');
    const reasons = cluster.store
      .list('events', { namespace: 'default', fieldSelector: 'involvedObject.name=crash' })
      .items.map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Pulled', 'Created', 'Started', 'BackOff']));
  });

  it('marks an unmapped image ErrImagePull', async () => {
    cluster.store.create('pods', pod('nope', { containers: [{ name: 'main', image: 'registry.example/unknown:1' }] }));
    await waitUntil('ErrImagePull', () =>
      ((containerStatus('nope').state as JsonObject | undefined)?.waiting as JsonObject | undefined)?.reason ===
      'ErrImagePull'
        ? true
        : undefined,
    );
    expect(status('nope').phase).toBe('Pending');
  });

  it('mounts the service account (token, namespace) unless the pod opts out', async () => {
    const show =
      'cat $STEWARD_POD_ROOT/var/run/secrets/kubernetes.io/serviceaccount/namespace; echo; cat $STEWARD_POD_ROOT/var/run/secrets/kubernetes.io/serviceaccount/token';
    cluster.store.create(
      'pods',
      pod('sa', {
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', show] }],
      }),
    );
    cluster.store.create(
      'pods',
      pod('no-sa', {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', show] }],
      }),
    );
    await waitUntil('both pods done', () =>
      ['Succeeded', 'Failed'].includes(String(status('sa').phase)) &&
      ['Succeeded', 'Failed'].includes(String(status('no-sa').phase))
        ? true
        : undefined,
    );
    expect(cluster.workloads!.kubelet.logs.read('default', 'sa', 'main', {})).toBe('default\nsteward-test-token');
    expect(status('no-sa').phase).toBe('Failed');
  });

  it('runs a Never pod to completion (Succeeded)', async () => {
    cluster.store.create(
      'pods',
      pod('once', {
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo done'] }],
      }),
    );
    await waitUntil('Succeeded', () => (status('once').phase === 'Succeeded' ? true : undefined));
    expect((containerStatus('once').state as JsonObject).terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
  });

  it('stops the process with SIGTERM when the pod is deleted, then removes the pod', async () => {
    await waitUntil('envy Ready', () => ready('envy') || undefined);
    const ip = String(status('envy').podIP);
    cluster.store.delete('pods', 'default', 'envy');
    await waitUntil('the pod to be gone', () => (cluster.store.tryGet('pods', 'default', 'envy') ? undefined : true));
    await expect(get(`http://${ip}:8080/`)).rejects.toThrow(/ECONNREFUSED/);
    const reasons = cluster.store
      .list('events', { namespace: 'default', fieldSelector: 'involvedObject.name=envy' })
      .items.map((e) => e.reason);
    expect(reasons).toContain('Killing');
  });

  it('stops every process when the cluster is reset', async () => {
    cluster.store.create('pods', pod('transient', { containers: [httpContainer()] }));
    await waitUntil('transient Ready', () => ready('transient') || undefined);
    const ip = String(status('transient').podIP);
    cluster.reset();
    await waitUntil('the process to stop', async () =>
      (await get(`http://${ip}:8080/`).catch(() => 'refused')) === 'refused' ? true : undefined,
    );
    await waitUntil('the node to be back', () => cluster.store.tryGet('nodes', undefined, 'steward-node'));
  });

  it('runs the preStop hook, then SIGKILLs a process that ignores SIGTERM once the grace period is over', async () => {
    const marker = join(dir, 'prestop-ran');
    cluster.store.create(
      'pods',
      pod('stubborn', {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'main',
            image: 'busybox',
            command: ['sh', '-c', 'trap "" TERM; echo started; while true; do sleep 1; done'],
            lifecycle: { preStop: { exec: { command: ['sh', '-c', `echo bye > ${marker}`] } } },
          },
        ],
      }),
    );
    await waitUntil(
      'stubborn started',
      () => cluster.workloads!.kubelet.logs.read('default', 'stubborn', 'main', {})?.includes('started') || undefined,
    );
    cluster.store.delete('pods', 'default', 'stubborn');
    await waitUntil('the pod to be gone', () =>
      cluster.store.tryGet('pods', 'default', 'stubborn') ? undefined : true,
    );
    expect(readFileSync(marker, 'utf8')).toBe('bye\n');
  });

  it('waits with CreateContainerConfigError for a missing Secret, and starts once it exists', async () => {
    const c = httpContainer();
    c.env = [...(c.env as JsonObject[]), { name: 'KEY', valueFrom: { secretKeyRef: { name: 'late', key: 'key' } } }];
    cluster.store.create('pods', pod('patient', { containers: [c] }));
    await waitUntil('CreateContainerConfigError', () =>
      ((containerStatus('patient').state as JsonObject | undefined)?.waiting as JsonObject | undefined)?.reason ===
      'CreateContainerConfigError'
        ? true
        : undefined,
    );
    cluster.store.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'late', namespace: 'default' },
      stringData: { key: 'finally' },
    });
    await waitUntil('patient Ready', () => ready('patient') || undefined);
    expect((await get(`http://${String(status('patient').podIP)}:8080/env/KEY`)).body).toBe('finally');
  });

  it('judges readiness with an exec probe, and restarts only failed containers under OnFailure', async () => {
    const marker = join(dir, 'ready-marker');
    cluster.store.create(
      'pods',
      pod('gated', {
        restartPolicy: 'OnFailure',
        containers: [
          {
            name: 'main',
            image: 'busybox',
            command: ['sh', '-c', 'echo up; while true; do sleep 1; done'],
            readinessProbe: { exec: { command: ['test', '-f', marker] }, periodSeconds: 1 },
          },
        ],
      }),
    );
    await waitUntil('gated Running', () => (status('gated').phase === 'Running' ? true : undefined));
    expect(ready('gated')).toBe(false);
    writeFileSync(marker, '');
    await waitUntil('gated Ready', () => ready('gated') || undefined);
    cluster.store.create(
      'pods',
      pod('onfailure', {
        restartPolicy: 'OnFailure',
        containers: [
          {
            name: 'main',
            image: 'busybox',
            command: ['sh', '-c', `if [ -f ${marker}-second ]; then exit 0; fi; touch ${marker}-second; exit 3`],
          },
        ],
      }),
    );
    await waitUntil('onfailure Succeeded', () => (status('onfailure').phase === 'Succeeded' ? true : undefined));
    expect(containerStatus('onfailure')).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 3 } } });
  });

  it('holds liveness checks until the startup probe passes, then restarts a container whose liveness probe fails', async () => {
    const c = httpContainer({
      startupProbe: { tcpSocket: { port: 'http' }, periodSeconds: 1, failureThreshold: 120 },
      livenessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
    });
    cluster.store.create('pods', pod('live', { containers: [c] }));
    await waitUntil('live Ready', () => ready('live') || undefined);
    const ip = String(status('live').podIP);
    await get(`http://${ip}:8080/unready`);
    await waitUntil('a restart', () => (Number(containerStatus('live').restartCount) >= 1 ? true : undefined));
    await waitUntil('live Ready again', () => ready('live') || undefined);
    const reasons = cluster.store
      .list('events', { namespace: 'default', fieldSelector: 'involvedObject.name=live' })
      .items.map((e) => e.message);
    expect(reasons).toContain('Container web failed liveness probe, will be restarted');
  });
});
