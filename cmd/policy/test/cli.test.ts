/** `steward policy test|eval` as a person runs them: the real CLI in a child process, for exit codes and output. */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/steward.mjs');
/** The CLI starts under tsx: allow for a slow, shared machine. */
const SLOW = 90_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function steward(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-policy-cli-'));
  await writeFile(join(dir, 'authz.rego'), 'package authz\n\nallow if input.user == "bob"\n');
  await writeFile(
    join(dir, 'authz_test.rego'),
    'package authz_test\n\nimport data.authz\n\ntest_bob if authz.allow with input as {"user": "bob"}\n\ntodo_test_later if false\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('steward policy test (CLI)', () => {
  it(
    'exits 0 when every test passes, printing each with -v in the current folder',
    async () => {
      const r = await steward(['policy', 'test', '-v'], { cwd: dir });
      expect(r.stdout).toMatch(
        /^authz_test\.rego:\ndata\.authz_test\.test_bob: PASS \(\S+\)\ndata\.authz_test\.todo_test_later: SKIPPED\n-{80}\nPASS: 1\/2\nSKIPPED: 1\/2\n$/,
      );
      expect(r.code).toBe(0);
    },
    SLOW,
  );

  it(
    'exits 1 on a failing test and writes JUnit XML to stdout',
    async () => {
      const failing = join(dir, 'failing');
      await mkdir(failing);
      await writeFile(join(failing, 'f_test.rego'), 'package f\n\ntest_ok if true\n\ntest_no if false\n');
      const r = await steward(['policy', 'test', '--format', 'junit', failing]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/<testsuites name="steward policy test" tests="2" failures="1" errors="0" skipped="0"/);
      expect(r.stdout).toMatch(/<testcase classname="data.f" name="test_no" file="[^"]+f_test.rego" line="5"/);
    },
    SLOW,
  );

  it(
    'exits 2 on a compile error with file:line:col, and on an unknown flag',
    async () => {
      const broken = join(dir, 'broken_test.rego');
      await writeFile(broken, 'package b\n\ntest_x if {\n\ty := z\n}\n');
      const r = await steward(['policy', 'test', broken]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${broken}:4:2: rego_unsafe_var_error: var z is unsafe`);
      await rm(broken);
      const usage = await steward(['policy', 'test', '--no-such-flag', dir]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("unknown option '--no-such-flag'");
    },
    SLOW,
  );

  it(
    "passes the built-in pack's suite (config/policies/tests)",
    async () => {
      const r = await steward(['policy', 'test', 'config/policies']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^PASS: (\d+)\/\1\n$/);
      expect(r.code).toBe(0);
    },
    SLOW,
  );
});

describe('steward policy eval (CLI)', () => {
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(gw.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it(
    'exits 1 for a blocked input read from stdin',
    async () => {
      const r = await steward(['policy', 'eval', '--input', '-'], { input: '{"query": "My SSN is 123-45-6789"}' });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        'decision: blocked\npolicies: builtin-pii\nreason: builtin-pii: PII detected: US SSN\n',
      );
    },
    SLOW,
  );

  it(
    'exits 0 for an input a running gateway allows, with the credential from STEWARD_API_KEY',
    async () => {
      const r = await steward(['policy', 'eval', '-i', '-', '--gateway', base, '--format', 'json'], {
        input: '{"query": "What is the weather tomorrow?"}',
        env: { STEWARD_API_KEY: gw.keys.acme },
      });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allowed', policies: [], source: base });
      expect(r.code).toBe(0);
    },
    SLOW,
  );
});
