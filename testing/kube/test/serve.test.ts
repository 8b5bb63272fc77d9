/** The `kube:serve` command and TLS mode, as people and scripts use them. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestCluster } from '../cluster.js';
import { Kubectl } from './kubectl.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('kube:serve', () => {
  it('prints the kubeconfig path, serves kubectl, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-serve-'));
    dirs.push(dir);
    const kubeconfig = join(dir, 'kubeconfig');
    const child = spawn(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['testing/kube/cli.ts', '--port', '0', '--kubeconfig', kubeconfig, '--crds', 'testing/kube/test/fixtures/crds'],
      { cwd: ROOT },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const started = Date.now();
      while (!out.includes('\n')) {
        if (Date.now() - started > 20_000) throw new Error('kube:serve did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out.trim()).toBe(kubeconfig);
      expect(readFileSync(kubeconfig, 'utf8')).toMatch(/server: http:\/\/127\.0\.0\.1:\d+/);
      const kubectl = new Kubectl(kubeconfig);
      expect(await kubectl.ok(['get', 'crd', '-o', 'name'])).toBe(
        'customresourcedefinition.apiextensions.k8s.io/gadgets.example.com\ncustomresourcedefinition.apiextensions.k8s.io/widgets.example.com\n',
      );
      kubectl.dispose();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 30_000);

  it('serves HTTPS with a self-signed certificate when asked', async () => {
    const cluster = await startTestCluster({ tls: true });
    try {
      expect(cluster.url).toMatch(/^https:\/\//);
      const kubectl = new Kubectl(cluster.kubeconfig);
      expect(await kubectl.ok(['get', 'ns', 'default', '-o', 'name'])).toBe('namespace/default\n');
      kubectl.dispose();
    } finally {
      await cluster.close();
    }
  });
});
