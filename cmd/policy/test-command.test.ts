import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { policyTest } from './index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

const AUTHZ = 'package authz\n\nallow if input.user == "bob"\n\nlimit := data.config.max\n';
const AUTHZ_TESTS = [
  'package authz_test',
  '',
  'import data.authz',
  '',
  'test_bob_allowed if authz.allow with input as {"user": "bob"}',
  '',
  'test_eve_denied if not authz.allow with input as {"user": "eve"}',
  '',
  'test_limit if authz.limit == 3 with data.config.max as 3',
  '',
  'todo_test_admins if false',
  '',
].join('\n');

/** A Policy manifest with its Rego as a literal block, as config/policies writes them. */
const manifest = (name: string, rego: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec:\n  type: custom\n  rego: |\n${rego
    .split('\n')
    .map((l) => (l ? `    ${l}` : ''))
    .join('\n')}\n`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-policy-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = async (name: string, text: string) => {
  await mkdir(join(dir, name, '..'), { recursive: true });
  await writeFile(join(dir, name), text);
  return join(dir, name);
};

describe('steward policy test: Rego tests', () => {
  it('passes with exit 0, skipped tests counted but not failing, with input and with data working', async () => {
    await write('authz.rego', AUTHZ);
    await write('authz_test.rego', AUTHZ_TESTS);
    const out = await policyTest([dir], { verbose: true });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^data\.authz_test\.test_bob_allowed: PASS \(.+\)$/m);
    expect(out.stdout).toMatch(/^data\.authz_test\.test_limit: PASS /m);
    expect(out.stdout).toMatch(/^data\.authz_test\.todo_test_admins: SKIPPED$/m);
    expect(out.stdout).toMatch(/PASS: 3\/4\nSKIPPED: 1\/4\n$/);
  });

  it('fails with exit 1 naming the rule and its file:line; errors are ERROR; only failures without -v', async () => {
    await write('authz.rego', AUTHZ);
    const tests = `${AUTHZ_TESTS}\ntest_eve_allowed if authz.allow with input as {"user": "eve"}\n\nx := v if some v in [1, 2]\n\ntest_conflict if x == 1\n`;
    const file = await write('authz_test.rego', tests);
    const out = await policyTest([dir]);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain(`${file}:\ndata.authz_test.test_eve_allowed: FAIL (`);
    expect(out.stdout).toContain(`  ${file}:13: test_eve_allowed is undefined\n`);
    expect(out.stdout).toMatch(/data\.authz_test\.test_conflict: ERROR \(.+\)\n {2}.*eval_conflict_error/);
    expect(out.stdout).not.toContain('test_bob_allowed');
    expect(out.stdout).toMatch(/PASS: 3\/6\nFAIL: 1\/6\nSKIPPED: 1\/6\nERROR: 1\/6\n$/);
  });

  it('selects tests by full name with --run', async () => {
    await write('authz.rego', AUTHZ);
    await write('authz_test.rego', AUTHZ_TESTS);
    const out = await policyTest([dir], { run: 'authz_test\\.test_(bob|eve)', format: 'json' });
    expect(JSON.parse(out.stdout).map((r: { name: string }) => r.name)).toEqual([
      'test_bob_allowed',
      'test_eve_denied',
    ]);
  });

  it('refuses a --run pattern that is not a regular expression with exit 2', async () => {
    await write('authz_test.rego', AUTHZ_TESTS);
    const out = await policyTest([dir], { run: '(' });
    expect(out).toMatchObject({ exitCode: 2, stdout: '' });
    expect(out.stderr).toMatch(/^--run: .*missing closing \)/);
  });

  it('writes JSON and JUnit with the counts', async () => {
    await write('authz.rego', AUTHZ);
    await write('authz_test.rego', `${AUTHZ_TESTS}\ntest_fails if false\n`);
    const json = JSON.parse((await policyTest([dir], { format: 'json' })).stdout);
    expect(json).toHaveLength(5);
    expect(json.find((r: { name: string }) => r.name === 'test_fails')).toMatchObject({
      package: 'data.authz_test',
      fail: true,
      location: { row: 13, col: 1 },
      duration: expect.any(Number),
    });
    const junit = await policyTest([dir], { format: 'junit' });
    expect(junit.exitCode).toBe(1);
    const suite =
      /<testsuite name="data.authz_test" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(
        junit.stdout,
      );
    expect(suite?.slice(1)).toEqual(['5', '1', '0', '1']);
    expect(junit.stdout.match(/<testcase /g)).toHaveLength(5);
    expect(junit.stdout.match(/<failure /g)).toHaveLength(1);
  });

  it('exits 2 on a compile error, naming file:line:col with the line and a caret', async () => {
    const file = await write('broken_test.rego', 'package broken\n\ntest_x if {\n\ty := z\n}\n');
    const out = await policyTest([dir]);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(`${file}:4:2: rego_unsafe_var_error: var z is unsafe\n\ty := z\n\t^`);
  });

  it("runs the tests of a Policy manifest's Rego and reports its lines in the manifest", async () => {
    const rego =
      'package steward.custom\n\ndeny contains "no" if input.query == "no"\n\ntest_denies if "no" in deny with input as {"query": "no"}\n\ntest_wrong if "no" in deny with input as {"query": "yes"}\n';
    const file = await write('policies/custom.yaml', manifest('custom', rego));
    await write('policies/secret.yaml', 'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n');
    const out = await policyTest([dir]);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain(`${file}:\ndata.steward.custom.test_wrong: FAIL (`);
    expect(out.stdout).toContain(`  ${file}:13: test_wrong is undefined`);
    expect(out.stdout).toMatch(/PASS: 1\/2\nFAIL: 1\/2\n$/);
  });

  it("maps a compile error of a manifest's Rego to the manifest's line and column", async () => {
    const file = await write(
      'p.yaml',
      manifest('broken', 'package steward.broken\n\ndeny contains msg if {\n  msg := concat("", [input.query)\n}'),
    );
    const out = await policyTest([file]);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`^${file}:10:37: rego_parse_error: `));
    expect(out.stderr).toContain(`      msg := concat("", [input.query)\n${' '.repeat(36)}^`);
  });

  it('exits 2 for a path that does not exist', async () => {
    const out = await policyTest([join(dir, 'missing')]);
    expect(out).toMatchObject({ exitCode: 2, stderr: `${join(dir, 'missing')}: no such file or folder\n` });
  });
});

const SUITE = (expectSsn: string) =>
  [
    `policy: ${join(ROOT, 'config/policies')}`,
    'cases:',
    '  - name: an SSN is blocked',
    '    input: {query: "My SSN is 123-45-6789"}',
    `    expect: {decision: ${expectSsn}, policies: [builtin-pii]}`,
    '  - name: a benign query is allowed',
    '    input: {query: "What is the weather in Paris tomorrow?"}',
    '    expect: {decision: allow, policies: []}',
    '',
  ].join('\n');

describe('steward policy test: fixture suites', () => {
  it("passes the built-in pack's own suite and tests", async () => {
    const out = await policyTest([join(ROOT, 'config/policies')], { format: 'json' });
    expect(out.stderr).toBe('');
    const results = JSON.parse(out.stdout) as { name: string; fail?: boolean; error?: unknown }[];
    expect(results.filter((r) => r.fail || r.error)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(15);
    expect(out.exitCode).toBe(0);
  });

  it('fails a case whose expectation is wrong, saying what the gateway decided, at the case line', async () => {
    const file = await write('pack.policytest', SUITE('allow'));
    const out = await policyTest([file]);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain(`${file}#an SSN is blocked: FAIL (`);
    expect(out.stdout).toContain(
      `  ${file}:3: expected allow, got block (policies: builtin-pii; reason: builtin-pii: PII detected: US SSN)`,
    );
    expect(out.stdout).toMatch(/PASS: 1\/2\nFAIL: 1\/2\n$/);
  });

  it('selects cases with --run and reads inline Policy manifests', async () => {
    const inline = [
      'policy:',
      '  - apiVersion: steward.dev/v1alpha1',
      '    kind: Policy',
      '    metadata: {name: no-weather}',
      '    spec: {type: custom, action: warn, rego: "package steward.w\\ndeny contains \\"weather\\" if contains(input.query, \\"weather\\")"}',
      'cases:',
      '  - {name: weather warns, input: {query: "the weather"}, expect: {decision: warn, policies: [no-weather]}}',
      '  - {name: other is allowed, input: {query: "the sea"}, expect: {decision: allow}}',
    ].join('\n');
    const file = await write('inline.policytest', inline);
    const out = await policyTest([file], { run: 'weather warns', verbose: true });
    expect(out.stdout).toContain(`${file}#weather warns: PASS (`);
    expect(out.stdout).toMatch(/PASS: 1\/1\n$/);
  });

  it('exits 2 for a suite that does not parse, naming the line and field', async () => {
    const file = await write('bad.policytest', SUITE('maybe'));
    const out = await policyTest([file]);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`^${file}:5: cases\\.0\\.expect\\.decision: `));
  });

  it("exits 2 when the suite's policies do not load", async () => {
    await write('p/broken.yaml', manifest('broken', 'package steward.b\n\ndeny contains x if {'));
    const file = await write(
      's.policytest',
      'policy: p\ncases:\n  - {name: a, input: {query: x}, expect: {decision: allow}}\n',
    );
    const out = await policyTest([file]);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain("the suite's policies do not all load");
    expect(out.stderr).toContain('policy broken:');
  });
});
