import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../platform/kube/client.js';
import type { Cache } from '../../manager/types.js';
import { compiledCondition, prunedByPod, readyCondition } from './checks.js';
import { compileError } from './compile.js';
import { policiesOfConfigMap, type ConfigMapFacts } from './wasm.js';

const good = 'package steward.custom\n\ndeny contains msg if {\n  input.query == "x"\n  msg := "no"\n}\n';
const bad = 'package steward.custom\n\ndeny contains msg if {\n  input.query ==\n}\n';

describe('compiledCondition', () => {
  it.each([
    {
      name: 'sets Compiled=True when the Rego compiles',
      spec: { rego: good },
      status: 'True',
      reason: 'CompileSucceeded',
    },
    {
      name: 'sets Compiled=False when the Rego does not parse',
      spec: { rego: bad },
      status: 'False',
      reason: 'CompileFailed',
    },
    {
      name: 'accepts a wasm bundle in base64 without compiling it',
      spec: { wasm: { bundleBase64: 'AGFzbQ==', entrypoint: 'x/deny' } },
      status: 'True',
      reason: 'CompileSucceeded',
    },
    {
      name: 'accepts a wasm bundle in a ConfigMap',
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      status: 'True',
      reason: 'CompileSucceeded',
    },
    {
      name: 'refuses a wasm bundle that is not base64',
      spec: { wasm: { bundleBase64: 'not base64!', entrypoint: 'x/deny' } },
      status: 'False',
      reason: 'CompileFailed',
    },
    {
      name: 'refuses a wasm bundle that is neither a wasm module nor a .tar.gz bundle',
      spec: { wasm: { bundleBase64: Buffer.from('hello').toString('base64'), entrypoint: 'x/deny' } },
      status: 'False',
      reason: 'CompileFailed',
    },
    {
      name: 'reports a ConfigMap that is not in the namespace',
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      configMap: null,
      status: 'False',
      reason: 'ConfigMapMissing',
      message: 'spec.wasm.configMapRef: ConfigMap b not found in the namespace',
    },
    {
      name: 'reports a key the ConfigMap does not have',
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      configMap: { data: { other: 'AGFzbQ==' } },
      status: 'False',
      reason: 'ConfigMapMissing',
      message: 'spec.wasm.configMapRef: ConfigMap b has no key k in binaryData or data',
    },
    {
      name: "accepts the bundle in the ConfigMap's binaryData",
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      configMap: { binaryData: { k: 'AGFzbQ==' } },
      status: 'True',
      reason: 'CompileSucceeded',
    },
    {
      name: "accepts the bundle as base64 text in the ConfigMap's data",
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      configMap: { data: { k: 'H4sIAAAAAAAA' } },
      status: 'True',
      reason: 'CompileSucceeded',
    },
    {
      name: 'refuses a ConfigMap key that holds no bundle',
      spec: { wasm: { configMapRef: { name: 'b', key: 'k' }, entrypoint: 'x/deny' } },
      configMap: { data: { k: 'plain text' } },
      status: 'False',
      reason: 'CompileFailed',
      message: 'spec.wasm.configMapRef: ConfigMap b key k is not base64',
    },
    {
      name: 'refuses a wasm section without a bundle',
      spec: { wasm: { entrypoint: 'x/deny' } },
      status: 'False',
      reason: 'CompileFailed',
    },
    { name: 'refuses a Policy with neither rego nor wasm', spec: {}, status: 'False', reason: 'CompileFailed' },
    {
      name: 'accepts a redact policy, whose rule is its detectors',
      spec: { action: 'redact' as const, redact: { kinds: ['payment_card' as const] } },
      status: 'True',
      reason: 'CompileSucceeded',
    },
  ] as {
    name: string;
    spec: Parameters<typeof compiledCondition>[0];
    configMap?: ConfigMapFacts;
    status: string;
    reason: string;
    message?: string;
  }[])('$name', ({ spec, configMap, status, reason, message }) => {
    const error = spec.rego === undefined ? undefined : compileError('p', spec.rego, 'v1');
    const c = compiledCondition(spec, 'p.rego', error, configMap);
    expect(c).toMatchObject({ type: 'Compiled', status, reason });
    if (message) expect(c.message).toBe(message);
  });

  it('reports the file, line and column the gateway would report', () => {
    expect(compileError('pii', bad, 'v1')).toMatch(/^pii\.rego:5:1: /);
  });

  it('compiles v0 syntax when regoVersion is v0', () => {
    expect(compileError('old', 'package x\n\ndeny[msg] {\n  msg := "no"\n}\n', 'v0')).toBeUndefined();
    expect(compileError('old', 'package x\n\ndeny[msg] {\n  msg := "no"\n}\n', 'v1')).toMatch(/^old\.rego:\d+:\d+/);
  });
});

describe('readyCondition', () => {
  const compiled = { type: 'Compiled', status: 'True' as const, reason: 'CompileSucceeded' };
  const entry = (pod: string, observedGeneration: number, loaded = true) => ({ pod, observedGeneration, loaded });

  it.each([
    {
      name: 'is Loaded when every running gateway pod has the current generation',
      pods: ['gw-a', 'gw-b'],
      byPod: [entry('gw-a', 2), entry('gw-b', 2)],
      status: 'True',
      reason: 'Loaded',
    },
    {
      name: 'is pending while a pod has an older generation',
      pods: ['gw-a', 'gw-b'],
      byPod: [entry('gw-a', 2), entry('gw-b', 1)],
      status: 'False',
      reason: 'RolloutPending',
      message: /gw-b/,
    },
    {
      name: 'is pending while a pod has not reported',
      pods: ['gw-a'],
      byPod: undefined,
      status: 'False',
      reason: 'RolloutPending',
      message: /1\/1 gateway pods/,
    },
    {
      name: 'is pending while a pod failed to load it',
      pods: ['gw-a'],
      byPod: [{ ...entry('gw-a', 2, false), error: 'p.rego:1:1: boom' }],
      status: 'False',
      reason: 'RolloutPending',
      message: /gw-a \(p\.rego:1:1: boom\)/,
    },
    { name: 'is Loaded with no gateway pod running', pods: [], byPod: undefined, status: 'True', reason: 'Loaded' },
  ])('$name', ({ pods, byPod, status, reason, message }) => {
    const c = readyCondition(compiled, 2, pods, byPod);
    expect(c).toMatchObject({ status, reason });
    if (message) expect(c.message).toMatch(message);
  });

  it.each(['CompileFailed', 'ConfigMapMissing'])('is not Ready, with the reason of Compiled (%s)', (reason) => {
    expect(readyCondition({ type: 'Compiled', status: 'False', reason, message: 'x' }, 1, [], undefined)).toMatchObject(
      { status: 'False', reason, message: 'x' },
    );
  });

  it('drops the entries of pods that are gone and keeps the others', () => {
    expect(prunedByPod([entry('a', 1), entry('b', 1)], new Set(['b']))).toEqual([entry('b', 1)]);
    expect(prunedByPod(undefined, new Set())).toBeUndefined();
  });
});

describe('policiesOfConfigMap', () => {
  it('wakes the Policies of the namespace whose wasm bundle the ConfigMap holds', () => {
    const policy = (name: string, spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name, namespace: 'prod' },
      spec: { type: 'custom', ...spec },
    });
    const objects = [
      policy('uses', { wasm: { configMapRef: { name: 'bundles', key: 'k' }, entrypoint: 'x/deny' } }),
      policy('other', { wasm: { configMapRef: { name: 'elsewhere', key: 'k' }, entrypoint: 'x/deny' } }),
      policy('rego', { rego: 'package p\n' }),
    ];
    const cache = { list: () => objects } as unknown as Cache;
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bundles', namespace: 'prod' } };
    expect(policiesOfConfigMap(cache)(cm)).toEqual(['prod/uses']);
  });
});
