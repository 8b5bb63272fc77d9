import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedPath } from '../../../testing/shared.js';
import type { PolicyInput } from '../types.js';
import { ask, closeEngine, engineDir, engineSource, policy, policyOf, startEngine } from './harness.js';

// OPA's test bundle: entrypoint test/allow, true only for input {"x": "x"}.
const FIXTURE = process.env.OPA_WASM_FIXTURE ?? sharedPath('opa-wasm-fixture/bundle.tar.gz');
const bundle = () => readFileSync(FIXTURE).toString('base64');

const configMap = (name: string, maps: Record<string, Record<string, string>>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n${Object.entries(maps)
    .map(([field, map]) => `${field}: ${JSON.stringify(map)}\n`)
    .join('')}---\n`;

const fromConfigMap = (name: string, key: string) => ({
  wasm: { configMapRef: { name, key }, entrypoint: 'test/allow' },
});

afterEach(closeEngine);

describe.skipIf(!existsSync(FIXTURE))('wasm policies (folder mode)', () => {
  it('evaluates a bundleBase64 policy by the decision contract: allow defined and not true blocks', async () => {
    const e = await startEngine(policyOf('fixture', { wasm: { bundleBase64: bundle(), entrypoint: 'test/allow' } }));
    expect(e.problems()).toEqual([]);
    expect(ask(e, 'anything')).toMatchObject({
      approved: false,
      blockReason: 'fixture: not allowed by policy',
      evaluated: ['fixture'],
    });
    const allowed = e.evaluate({ query: 'q', surface: 'pre-check', x: 'x' } as PolicyInput, { surface: 'pre-check' });
    expect(allowed).toMatchObject({ approved: true, evaluated: ['fixture'] });
  });

  it('turns the denial of a warn policy into a warning, and keeps priority order beside Rego policies', async () => {
    const e = await startEngine(
      policyOf('fixture', {
        action: 'warn',
        priority: 50,
        wasm: { bundleBase64: bundle(), entrypoint: 'test/allow' },
      }) + policy('rego-first', { priority: 90 }, 'package p.first\ndeny contains "no" if input.query == "stop"\n'),
    );
    expect(ask(e, 'go')).toMatchObject({
      approved: true,
      warnings: ['fixture: not allowed by policy'],
      evaluated: ['rego-first', 'fixture'],
    });
  });

  it('reads the bundle of configMapRef from a ConfigMap document of the manifest folders (binaryData or data)', async () => {
    const e = await startEngine(
      configMap('bundles', { binaryData: { bin: bundle() }, data: { text: bundle() } }) +
        policyOf('from-binary', fromConfigMap('bundles', 'bin')) +
        policyOf('from-text', fromConfigMap('bundles', 'text')),
    );
    expect(e.problems()).toEqual([]);
    expect(ask(e, 'anything')).toMatchObject({ approved: false, triggered: ['from-binary', 'from-text'] });
  });

  it('reports a missing ConfigMap naming the field, and loads the policy once the ConfigMap appears', async () => {
    const e = await startEngine(policyOf('late', fromConfigMap('bundles', 'bundle')));
    expect(e.problems()).toEqual([
      { policy: 'late', message: 'spec.wasm.configMapRef: ConfigMap default/bundles not found' },
    ]);
    expect(e.loadStates()).toEqual([
      expect.objectContaining({ name: 'late', loaded: false, error: expect.stringContaining('not found') }),
    ]);
    expect(ask(e, 'anything').approved).toBe(true);

    await writeFile(join(engineDir(), 'cm.yaml'), configMap('bundles', { binaryData: { other: bundle() } }));
    await engineSource().reload();
    expect(e.problems()).toEqual([
      {
        policy: 'late',
        message: 'spec.wasm.configMapRef: ConfigMap default/bundles has no key bundle in binaryData or data',
      },
    ]);

    await writeFile(join(engineDir(), 'cm.yaml'), configMap('bundles', { binaryData: { bundle: bundle() } }));
    await engineSource().reload();
    expect(e.problems()).toEqual([]);
    expect(ask(e, 'anything').approved).toBe(false);
  });

  it('keeps the last good bundle in force when the ConfigMap changes to one that does not load', async () => {
    const e = await startEngine(
      configMap('bundles', { binaryData: { bundle: bundle() } }) +
        policyOf('steady', fromConfigMap('bundles', 'bundle')),
    );
    expect(ask(e, 'anything').approved).toBe(false);
    await writeFile(
      join(engineDir(), 'p.yaml'),
      configMap('bundles', { binaryData: { bundle: 'AAECAw==' } }) +
        policyOf('steady', fromConfigMap('bundles', 'bundle')),
    );
    await engineSource().reload();
    expect(e.problems()).toEqual([
      {
        policy: 'steady',
        message: expect.stringMatching(
          /^spec\.wasm: the bundle cannot be loaded: .*; its last good version stays in force$/,
        ),
      },
    ]);
    expect(e.loadStates()[0]).toMatchObject({ loaded: false, fallback: { generation: 0, restored: false } });
    expect(ask(e, 'anything').approved).toBe(false);
  });

  it('reports an entrypoint the bundle does not have', async () => {
    const e = await startEngine(
      policyOf('wrong', { wasm: { bundleBase64: bundle(), entrypoint: 'steward/pii/deny' } }),
    );
    expect(e.problems()).toEqual([
      {
        policy: 'wrong',
        message: 'spec.wasm.entrypoint: steward/pii/deny is not an entrypoint of the bundle (it has: test/allow)',
      },
    ]);
    expect(e.active()).toEqual([]);
  });

  it('evaluates a wasm policy on an isolation worker for a large input', { timeout: 60_000 }, async () => {
    const e = await startEngine(policyOf('fixture', { wasm: { bundleBase64: bundle(), entrypoint: 'test/allow' } }), {
      isolation: { workers: 1 },
      inlineMaxBytes: 64,
    });
    const large = await e.evaluate({ query: 'y'.repeat(1000), surface: 'pre-check' }, { surface: 'pre-check' });
    expect(large).toMatchObject({ approved: false, blockReason: 'fixture: not allowed by policy' });
    const allowed = await e.evaluate({ query: 'y'.repeat(1000), surface: 'pre-check', x: 'x' } as PolicyInput, {
      surface: 'pre-check',
    });
    expect(allowed).toMatchObject({ approved: true });
  });
});
