/**
 * `steward standalone` as a process, started wrong in each way a person can get wrong: it must end with exit code 2
 * and one line on stderr naming the setting to change, and no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/ports.js';

const BIN = new URL('../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
/** The local PostgreSQL (trust auth) that CI and development machines run; its cases are skipped without it. */
const PG = { host: '127.0.0.1', port: 5432 };

let tmp: string;
let postgresUp = false;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-startup-'));
  postgresUp = await new Promise<boolean>((resolve) => {
    const s = new Socket();
    s.setTimeout(1000, () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
    s.connect(PG.port, PG.host, () => (s.destroy(), resolve(true)));
  });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `steward standalone` with `env` on top of a clean environment; kills it if it has not exited by the deadline. */
async function standalone(env: Record<string, string>, deadlineMs = 60_000): Promise<Exit> {
  const [gw, orch] = [await freePort(), await freePort()];
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(STEWARD_|DATABASE_URL$|REDIS_URL$|LOG_)/.test(k)),
  );
  const child = spawn(process.execPath, [BIN, 'standalone'], {
    cwd: ROOT,
    env: {
      ...base,
      STEWARD_DATA_DIR: join(tmp, 'data'),
      STEWARD_GATEWAY_PORT: String(gw),
      STEWARD_ORCHESTRATOR_PORT: String(orch),
      STEWARD_WATCH_MANIFESTS: 'false',
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function expectOneLineNaming(exit: Exit, setting: string, also?: RegExp) {
  const lines = exit.stderr.split('\n').filter((l) => l.trim() !== '');
  expect({ code: exit.code, lines }).toMatchObject({
    code: 2,
    lines: [expect.stringMatching(new RegExp(`^steward: .*\\b${setting}\\b`))],
  });
  if (also) expect(lines[0]).toMatch(also);
  expect(exit.stderr + exit.stdout).not.toMatch(/^\s+at /m);
}

describe('steward standalone ends with exit 2 and one line naming the setting', { timeout: 90_000 }, () => {
  it('when the gateway port is taken', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      expectOneLineNaming(
        await standalone({ STEWARD_HOST: '127.0.0.1', STEWARD_GATEWAY_PORT: String(port) }),
        'STEWARD_GATEWAY_PORT',
        /already in use/,
      );
    } finally {
      server.close();
    }
  });

  it('when the orchestrator port is taken, before the store is opened', async () => {
    // NB: a stand-in for PostgreSQL that counts connections: the store opening would connect to it.
    let connections = 0;
    const database: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    const taken: Server = createServer();
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const dbPort = (database.address() as { port: number }).port;
      const port = (taken.address() as { port: number }).port;
      const exit = await standalone({
        STEWARD_HOST: '127.0.0.1',
        STEWARD_ORCHESTRATOR_PORT: String(port),
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${dbPort}/test`,
      });
      expectOneLineNaming(exit, 'STEWARD_ORCHESTRATOR_PORT', /already in use/);
      expect(connections).toBe(0);
    } finally {
      taken.close();
      database.close();
    }
  });

  it('when the gateway and the orchestrator are given the same port', async () => {
    expectOneLineNaming(
      await standalone({ STEWARD_GATEWAY_PORT: '18999', STEWARD_ORCHESTRATOR_PORT: '18999' }),
      'STEWARD_ORCHESTRATOR_PORT',
      /STEWARD_GATEWAY_PORT/,
    );
  });

  it('when a setting has an invalid value', async () => {
    expectOneLineNaming(
      await standalone({ STEWARD_BODY_LIMIT_BYTES: 'lots' }),
      'STEWARD_BODY_LIMIT_BYTES',
      /invalid configuration/,
    );
  });

  it('when the database does not answer', async () => {
    expectOneLineNaming(
      await standalone({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/x' }),
      'DATABASE_URL',
      /cannot reach PostgreSQL at 127\.0\.0\.1:1 \(connection refused\)/,
    );
  });

  it('when the database refuses the role', async ({ skip }) => {
    if (!postgresUp) skip('no PostgreSQL at 127.0.0.1:5432');
    expectOneLineNaming(
      await standalone({ DATABASE_URL: `postgresql://steward_no_such_role:wrong@${PG.host}:${PG.port}/postgres` }),
      'DATABASE_URL',
      /refused the credentials/,
    );
  });

  it('when the database does not exist', async ({ skip }) => {
    if (!postgresUp) skip('no PostgreSQL at 127.0.0.1:5432');
    expectOneLineNaming(
      await standalone({ DATABASE_URL: `postgresql://postgres@${PG.host}:${PG.port}/steward_no_such_db` }),
      'DATABASE_URL',
      /does not exist/,
    );
  });

  it('when Redis does not answer', async () => {
    expectOneLineNaming(
      await standalone({ REDIS_URL: 'redis://127.0.0.1:1' }),
      'REDIS_URL',
      /cannot reach Redis at 127\.0\.0\.1:1/,
    );
  });

  it('when a manifest folder does not exist', async () => {
    expectOneLineNaming(
      await standalone({ STEWARD_MANIFESTS: '/nonexistent' }),
      'STEWARD_MANIFESTS',
      /\/nonexistent does not exist/,
    );
  });

  it('and prints the stack as well with LOG_LEVEL=debug', async () => {
    const exit = await standalone({ STEWARD_MANIFESTS: '/nonexistent', LOG_LEVEL: 'debug' });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^steward: STEWARD_MANIFESTS: /);
    expect(exit.stderr).toMatch(/^\s+at /m);
  });
});
