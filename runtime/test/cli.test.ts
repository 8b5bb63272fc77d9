/**
 * `steward validate` and `steward license issue` through the real binary (node bin/steward.mjs), on temporary
 * folders: exit codes, and what a person reads on stdout and stderr.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin', 'steward.mjs');
const steward = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH, ...env },
  });

const BROKEN_POLICY = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: broken}
spec:
  type: custom
  rego: |
    package steward.broken

    deny contains msg if {
      msg := concat("", [input.query)
    }
`;
const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata: {name: steward-db}\nstringData: {url: postgres://x}\n';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('steward validate', () => {
  it('exits 0 on config/ (samples, policy pack, examples and the AxonFlow agent), warning about the AxonFlow fields', () => {
    const res = steward(['validate', 'config']);
    expect(res.stderr).not.toMatch(/^error:/m);
    expect(res.stderr).toContain('warning: config/axonflow/agent-axonflow.yaml#0 metadata.domain:');
    // NB: the quick-start set's Namespace and Secrets are other APIs' documents: skipped and counted.
    expect(res.stdout).toMatch(
      /^\d+ document\(s\) in \d+ file\(s\): 0 error\(s\), 2 warning\(s\); skipped 4 document\(s\) of other kinds \(v1 Namespace, v1 Secret ×3; --strict makes them errors\)$/m,
    );
    expect(res.status).toBe(0);
  });

  it('exits 1 on a Policy whose Rego does not parse, found in a nested folder, with file, document and position', async () => {
    const folder = join(dir, 'rego');
    await mkdir(join(folder, 'team', 'policies'), { recursive: true });
    await cp(join(ROOT, 'config', 'policies', 'pii.yaml'), join(folder, 'pii.yaml'));
    await writeFile(join(folder, 'team', 'policies', 'broken.yaml'), `${SECRET}---\n${BROKEN_POLICY}`);
    const res = steward(['validate', folder]);
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(
      `error: ${join(folder, 'team', 'policies', 'broken.yaml')}#1 spec.rego: broken.rego:4:33: unexpected ) token: expected "," or "]"\n` +
        '  msg := concat("", [input.query)\n' +
        `${' '.repeat(32)}^\n`,
    );
    expect(res.stdout).toContain(
      '2 document(s) in 2 file(s): 1 error(s), 0 warning(s); skipped 1 document(s) of other kinds (v1 Secret;',
    );
  });

  it('skips a Secret beside the manifests, and exits 1 on it with --strict', async () => {
    const folder = join(dir, 'mixed');
    await mkdir(folder);
    await writeFile(join(folder, 'secret.yaml'), SECRET);
    await cp(join(ROOT, 'config', 'examples', 'connector.yaml'), join(folder, 'connector.yaml'));
    const lenient = steward(['validate', folder]);
    expect(lenient.status).toBe(0);
    expect(lenient.stdout).toContain('skipped 1 document(s) of other kinds (v1 Secret; --strict makes them errors)');
    const strict = steward(['validate', '--strict', folder]);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain(
      `error: ${join(folder, 'secret.yaml')}#0 apiVersion: v1 Secret is not a Steward document (--strict)`,
    );
  });
});

describe('steward license issue', () => {
  it('exits 2 with a clear message for an expiry in the past, printing no key', () => {
    const res = steward(['license', 'issue', '--tier', 'PRO', '--expires', '2020-01-01'], {
      STEWARD_LICENSE_SIGNING_SECRET: 's',
    });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim()).toBe(
      'steward: --expires 2020-01-01 is in the past (2020-01-01T23:59:59.000Z); a key that has already expired would be refused everywhere, so choose a later date',
    );
  });

  it('mints a key for a future expiry', () => {
    const res = steward(['license', 'issue', '--tier', 'ENT', '--expires', '2099-12-31'], {
      STEWARD_LICENSE_SIGNING_SECRET: 's',
    });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toMatch(/^[A-Z0-9]+-ENT-/);
  });
});
