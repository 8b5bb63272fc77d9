/** `kube:serve --run-workloads --image NAME=COMMAND`: pods run as processes, and SIGTERM stops them all. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../kubelet/images.js';
import { Kubectl } from './kubectl.js';
import { alive, HTTP_IMAGE, httpContainer, IMAGES, pod } from './workload-fixtures.js';
import { waitUntil } from '../../eventually.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-serve-workloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kube:serve --run-workloads', () => {
  it('runs a pod from a mapped image and stops its process on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const image = `${HTTP_IMAGE.split(':')[0]}=${IMAGES['fixtures.local/http-server']!.join(' ')}`;
    const child = spawn(
      join(REPO_ROOT, 'node_modules/.bin/tsx'),
      ['testing/kube/cli.ts', '--port', '0', '--kubeconfig', kubeconfig, '--run-workloads', '--image', image],
      { cwd: REPO_ROOT },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const kubectl = new Kubectl(kubeconfig);
    let podPid = 0;
    try {
      await waitUntil('the kubeconfig path', () => (out.includes('\n') ? true : undefined), 30_000);
      await kubectl.ok(['apply', '-f', '-'], { stdin: stringify(pod('web', { containers: [httpContainer()] })) });
      await kubectl.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=120s'], { timeoutMs: 130_000 });
      expect(await kubectl.ok(['get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/'])).toBe('pod web');
      podPid = Number(await kubectl.ok(['get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/pid']));
      expect(alive(podPid)).toBe(true);
    } finally {
      kubectl.dispose();
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(podPid).toBeGreaterThan(0);
    expect(alive(podPid)).toBe(false);
  }, 180_000);
});
