import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../testing/gateway.js';
import { policyEval } from './index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-policy-eval-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stdin = (value: unknown) => () => Promise.resolve(JSON.stringify(value));

/** A warn policy of one organization, beside the pack. */
const SCOPED = [
  'apiVersion: steward.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: acme-no-weather}',
  'spec:',
  '  type: custom',
  '  action: warn',
  '  scope: {organizations: [acme]}',
  '  rego: |',
  '    package steward.acme',
  '    deny contains "no weather talk" if contains(input.query, "weather")',
  '',
].join('\n');

describe('steward policy eval over manifest folders', () => {
  it('blocks an SSN with the built-in pack by default: exit 1, policies, reason and time', async () => {
    const out = await policyEval({ input: '-', stdin: stdin({ query: 'My SSN is 123-45-6789' }) });
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toMatch(
      /^decision: blocked\npolicies: builtin-pii\nreason: builtin-pii: PII detected: US SSN\nwarnings: none\ntime: [\d.]+ ms \(5 policies evaluated here\)\n$/,
    );
  });

  it('allows a benign input from a file with exit 0, and writes JSON', async () => {
    const file = join(dir, 'benign.json');
    await writeFile(file, JSON.stringify({ query: 'What is the weather tomorrow?' }));
    const out = await policyEval({ input: file, format: 'json' });
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      decision: 'allowed',
      approved: true,
      policies: [],
      warnings: [],
      evaluation_ms: expect.any(Number),
      evaluated: expect.arrayContaining(['builtin-pii']),
      source: 'local',
    });
  });

  it("applies a folder's scoped policies to the organization named, as the gateway scopes them", async () => {
    const folder = join(dir, 'manifests');
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    await writeFile(join(folder, 'acme.yaml'), SCOPED);
    const input = stdin({ query: 'the weather in Lisbon' });
    const acme = await policyEval({ input: '-', stdin: input, manifests: [folder], organization: 'acme' });
    expect(acme.exitCode).toBe(0);
    expect(acme.stdout).toContain('policies: acme-no-weather\nwarnings:\n  - acme-no-weather: no weather talk\n');
    const other = await policyEval({ input: '-', stdin: input, manifests: [folder], organization: 'globex' });
    expect(other.stdout).toContain('policies: none\nwarnings: none\n');
    const alone = await policyEval({
      input: '-',
      stdin: input,
      manifests: [folder],
      organization: 'acme',
      builtinPack: false,
    });
    expect(alone.stdout).toContain('(1 policies evaluated here)');
  });

  it.each([
    ['not JSON', () => Promise.resolve('{query'), /^standard input: not JSON: /],
    ['without a query', stdin({ prompt: 'x' }), /input\.query must be a string/],
    ['of an unknown surface', stdin({ query: 'x', surface: 'email' }), /input\.surface must be one of pre-check, /],
  ])('exits 2 for an input %s', async (_, read, message) => {
    const out = await policyEval({ input: '-', stdin: read });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it('exits 2 when a Policy of the folders does not compile', async () => {
    const folder = join(dir, 'broken');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'b.yaml'), SCOPED.replace('deny contains', 'deny contains {'));
    const out = await policyEval({ input: '-', stdin: stdin({ query: 'x' }), manifests: [folder] });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/the policies do not all load:\n {2}policy acme-no-weather: acme-no-weather\.rego:2:/);
  });
});

describe('steward policy eval --gateway', () => {
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

  it("asks the gateway's /api/policies/test and reports its decision", async () => {
    const out = await policyEval({
      input: '-',
      stdin: stdin({ query: 'My SSN is 123-45-6789', context: { app: 'cli' } }),
      gateway: base,
      apiKey: gw.keys.acme,
      format: 'json',
    });
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({
      decision: 'blocked',
      policies: ['builtin-pii'],
      block_reason: 'builtin-pii: PII detected: US SSN',
      source: base,
    });
    expect(out.stderr).toBe('');
  });

  it('says which input fields the endpoint does not read', async () => {
    const out = await policyEval({
      input: '-',
      stdin: stdin({ query: 'hello', surface: 'llm', llm: { prompt: 'hi' } }),
      gateway: base,
      apiKey: gw.keys.acme,
    });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^decision: allowed\n[\s\S]*\(gateway http:\/\/127\.0\.0\.1:\d+\)\n$/);
    expect(out.stderr).toContain('not sent: surface, llm');
  });

  it("exits 2 with the gateway's error code when the credential is refused", async () => {
    const out = await policyEval({ input: '-', stdin: stdin({ query: 'x' }), gateway: base, apiKey: 'client-nope' });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/answered 401: /);
  });
});
