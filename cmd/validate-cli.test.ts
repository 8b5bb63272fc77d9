import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { summary, validateFiles } from './validate-cli.js';

const ROOT = new URL('../', import.meta.url).pathname;

const policy = (name: string, rego: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec:\n  type: custom\n  rego: |\n${rego
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
const GOOD_REGO = 'package steward.ok\n\ndeny contains "no" if input.query == "no"';
const BROKEN_REGO = 'package steward.broken\n\ndeny contains msg if {\n  msg := concat("", [input.query)\n}';
const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata: {name: steward-db}\nstringData: {url: postgres://x}\n';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-validate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('validateFiles', () => {
  it('passes the shipped manifests, the AxonFlow sample included (with its two warnings)', async () => {
    const report = await validateFiles([join(ROOT, 'config')]);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([
      expect.stringMatching(/agent-axonflow\.yaml#0 apiVersion: apiVersion axonflow\.io\/v1 is accepted here/),
      expect.stringMatching(/agent-axonflow\.yaml#0 metadata\.domain: .*read as spec\.domain/),
    ]);
    expect(report.documents).toBeGreaterThanOrEqual(13);
  });

  it("reads a reference product's domain file (axonflow.io/v1) as its llm-call agents, with warnings once", async () => {
    const domain = [
      'apiVersion: axonflow.io/v1',
      'kind: AgentConfig',
      'metadata: {name: travel-domain, domain: travel}',
      'spec:',
      '  execution: {default_mode: parallel, max_parallel_tasks: 5, timeout_seconds: 45}',
      '  agents:',
      '    - {name: flights, type: llm-call, capabilities: [flight-search], llm: {provider: openai, model: gpt-4o-mini}}',
      '    - {name: hotels, type: llm-call, capabilities: [hotel-search], llm: {provider: openai, model: gpt-4o-mini}}',
      '    - {name: bookings, type: connector-call}',
      '  routing: {strategy: capability}',
    ].join('\n');
    await writeFile(join(dir, 'travel.yaml'), domain);
    const report = await validateFiles([dir]);
    expect(report.errors).toEqual([]);
    expect(report.documents).toBe(2);
    expect(report.warnings.filter((w) => w.includes('spec.routing'))).toHaveLength(1);
    expect(report.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/apiVersion: .*steward\.dev\/v1alpha1/),
        expect.stringMatching(/spec\.agents\[2\]\.type: skipped/),
      ]),
    );
  });

  it('reports a Policy whose Rego does not compile with the file, document and the position the engine renders', async () => {
    await writeFile(join(dir, 'policies.yaml'), `${policy('fine', GOOD_REGO)}---\n${policy('broken', BROKEN_REGO)}`);
    const report = await validateFiles([dir]);
    expect(report.errors).toHaveLength(1);
    const [line, source, caret] = report.errors[0]!.split('\n');
    expect(line).toBe(
      `${join(dir, 'policies.yaml')}#1 spec.rego: broken.rego:4:33: unexpected ) token: expected "," or "]"`,
    );
    expect(source).toBe('  msg := concat("", [input.query)');
    expect(caret).toBe(`${' '.repeat(32)}^`);
  });

  it('compiles v0 Rego as v0', async () => {
    const v0 = 'package steward.old\n\ndeny[msg] { msg := input.query }';
    await writeFile(
      join(dir, 'old.yaml'),
      policy('old', v0).replace('type: custom', 'type: custom\n  regoVersion: v0'),
    );
    expect((await validateFiles([dir])).errors).toEqual([]);
  });

  it('walks folders recursively, skipping dot folders and files that are not manifests', async () => {
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, 'a', 'b', 'deep.yml'), policy('deep', BROKEN_REGO));
    await writeFile(join(dir, '.git', 'hidden.yaml'), 'not: [valid');
    await writeFile(join(dir, 'a', 'notes.txt'), 'not: [valid');
    const report = await validateFiles([dir]);
    expect(report.files).toBe(1);
    expect(report.errors).toEqual([
      expect.stringContaining(`${join(dir, 'a', 'b', 'deep.yml')}#0 spec.rego: deep.rego:4:33`),
    ]);
  });

  it('counts documents of other APIs as skipped, and makes them errors with strict', async () => {
    await writeFile(
      join(dir, 'mixed.yaml'),
      `${SECRET}---\n${SECRET.replace('steward-db', 'other')}---\n${policy('fine', GOOD_REGO)}`,
    );
    const lenient = await validateFiles([dir]);
    expect(lenient.errors).toEqual([]);
    expect(lenient.skipped.map((s) => s.at)).toEqual([`${join(dir, 'mixed.yaml')}#0`, `${join(dir, 'mixed.yaml')}#1`]);
    expect(summary(lenient)).toBe(
      '1 document(s) in 1 file(s): 0 error(s), 0 warning(s); skipped 2 document(s) of other kinds (v1 Secret ×2; --strict makes them errors)',
    );
    const strict = await validateFiles([dir], { strict: true });
    expect(strict.errors).toEqual([
      `${join(dir, 'mixed.yaml')}#0 apiVersion: v1 Secret is not a Steward document (--strict)`,
      `${join(dir, 'mixed.yaml')}#1 apiVersion: v1 Secret is not a Steward document (--strict)`,
    ]);
  });

  it('reports a name defined twice, as start-up skips the second', async () => {
    await writeFile(join(dir, 'one.yaml'), policy('same', GOOD_REGO));
    await writeFile(join(dir, 'two.yaml'), policy('same', GOOD_REGO));
    const report = await validateFiles([dir]);
    expect(report.errors).toEqual([
      `${join(dir, 'two.yaml')}#0 metadata.name: duplicate Policy default/same; first defined in ${join(dir, 'one.yaml')}#0`,
    ]);
  });

  it('reads a file named twice (a folder and a file in it) once', async () => {
    await writeFile(join(dir, 'one.yaml'), policy('once', GOOD_REGO));
    const report = await validateFiles([dir, join(dir, 'one.yaml')]);
    expect(report).toMatchObject({ files: 1, documents: 1, errors: [] });
  });

  it('names a path that does not exist', async () => {
    const report = await validateFiles([join(dir, 'missing')]);
    expect(report.errors).toEqual([`${join(dir, 'missing')}: no such file or folder`]);
  });
});
