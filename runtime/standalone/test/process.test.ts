import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitForHttp } from '../../../testing/ports.js';

const BIN = new URL('../../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-proc-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('steward standalone as a process', () => {
  it('serves /health on both ports and exits 0 within 10 s of SIGTERM', async () => {
    const [gw, orch] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [BIN, 'standalone'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: '',
        STEWARD_GATEWAY_PORT: String(gw),
        STEWARD_ORCHESTRATOR_PORT: String(orch),
        STEWARD_DATA_DIR: tmp,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      // NB: a deadline, not a speed target: a fresh data folder runs initdb, slow on a busy 2-core machine.
      const res = await waitForHttp(`http://127.0.0.1:${gw}/health`, 90_000);
      expect(await res.json()).toMatchObject({ status: 'healthy', service: 'steward-gateway' });
      await waitForHttp(`http://127.0.0.1:${orch}/health`, 5_000);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const sentAt = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - sentAt).toBeLessThan(10_000);
      expect(output).toContain('shutdown complete');
      expect(output).toContain('"database":"pglite"');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('steward validate', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'validate', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });

  it('exits 0 on the shipped samples and examples', () => {
    const res = run('config/samples', 'config/examples');
    expect(res.stderr.match(/^error:/m)).toBeNull();
    expect(res.status).toBe(0);
  });

  it('exits 1 naming the file and spec.llm for a specialist without an llm', async () => {
    const file = join(tmp, 'bad.yaml');
    await writeFile(
      file,
      'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: a}\nspec: {type: specialist, domain: travel}\n',
    );
    const res = run(file);
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(`${file}#0 spec.llm`);
  });

  it('exits 1 on a file that does not exist', () => {
    expect(run(join(tmp, 'missing.yaml')).status).toBe(1);
  });
});
