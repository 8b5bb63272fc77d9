import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitForHttp } from '../../../testing/ports.js';

const BIN = new URL('../../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-gw-proc-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('steward gateway as a process (folder source)', () => {
  it('serves /healthz and /readyz, and exits 0 after draining on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'gateway'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: '',
        STEWARD_HOST: '127.0.0.1',
        STEWARD_GATEWAY_PORT: String(port),
        STEWARD_DATA_DIR: tmp,
        STEWARD_MANIFESTS: 'config/samples',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      // NB: a deadline, not a speed target: a fresh data folder runs initdb.
      const ready = await waitForHttp(`http://127.0.0.1:${port}/readyz`, 90_000);
      expect(await ready.json()).toEqual({ status: 'ok' });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('steward gateway ready');
      expect(output).toContain('shutdown complete');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
