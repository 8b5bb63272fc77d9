import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/log.js';
import { KubeClient, Resources } from '../../../platform/kube/index.js';
import { eventually } from '../../../testing/eventually.js';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { sharedPath } from '../../../testing/shared.js';
import { KubernetesSource } from '../../source/index.js';
import { RegoPolicyEngine } from '../engine.js';
import type { PolicyInput } from '../types.js';
import { ask } from './harness.js';

// OPA's test bundle: entrypoint test/allow, true only for input {"x": "x"}.
const FIXTURE = process.env.OPA_WASM_FIXTURE ?? sharedPath('opa-wasm-fixture/bundle.tar.gz');

let cluster: TestCluster;
let client: KubeClient;
let source: KubernetesSource | undefined;
let engine: RegoPolicyEngine | undefined;

describe.skipIf(!existsSync(FIXTURE))('a wasm Policy whose bundle is in a ConfigMap (cluster mode)', () => {
  beforeAll(async () => {
    cluster = await startTestCluster({ crds: 'crds/' });
    client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'wasm-policy-test' });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.close();
  });
  beforeEach(() => cluster.reset());
  afterEach(async () => {
    engine?.close();
    await source?.close();
    engine = source = undefined;
  });

  it('reports the ConfigMap or key that is missing, loads the bundle once it is there, and keeps it when it goes', async () => {
    await client.create(Resources.Policy, {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'fixture', namespace: 'default' },
      spec: { type: 'custom', wasm: { configMapRef: { name: 'bundles', key: 'bundle' }, entrypoint: 'test/allow' } },
    });
    source = new KubernetesSource({
      client,
      namespace: 'default',
      informer: { backoffMs: 20, maxBackoffMs: 100, watchTimeoutSeconds: 1 },
    });
    await source.ready();
    engine = new RegoPolicyEngine({
      source,
      log: createLogger({ level: 'silent' }),
      limits: { deadlineMs: 1000, maxSteps: 1_000_000 },
      isolation: false,
    });
    const e = engine;
    expect(e.problems()).toEqual([
      { policy: 'fixture', message: 'spec.wasm.configMapRef: ConfigMap default/bundles not found' },
    ]);
    expect(e.loadStates()).toEqual([
      expect.objectContaining({
        name: 'fixture',
        generation: 1,
        loaded: false,
        error: expect.stringContaining('not found'),
      }),
    ]);
    expect(ask(e, 'anything').approved).toBe(true);

    const bytes = readFileSync(FIXTURE).toString('base64');
    await client.create(Resources.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bundles', namespace: 'default' },
      binaryData: { other: bytes },
    });
    await eventually(() =>
      expect(e.problems()).toEqual([
        {
          policy: 'fixture',
          message: 'spec.wasm.configMapRef: ConfigMap default/bundles has no key bundle in binaryData or data',
        },
      ]),
    );

    await client.patch(Resources.ConfigMap, 'default', 'bundles', { binaryData: { bundle: bytes } });
    await eventually(() => expect(e.problems()).toEqual([]));
    expect(e.loadStates()).toEqual([{ namespace: 'default', name: 'fixture', generation: 1, loaded: true }]);
    expect(ask(e, 'anything')).toMatchObject({ approved: false, blockReason: 'fixture: not allowed by policy' });
    const allowed = e.evaluate({ query: 'q', surface: 'pre-check', x: 'x' } as PolicyInput, { surface: 'pre-check' });
    expect(allowed).toMatchObject({ approved: true });

    await client.delete(Resources.ConfigMap, 'default', 'bundles');
    await eventually(() =>
      expect(e.problems()).toEqual([
        {
          policy: 'fixture',
          message:
            'spec.wasm.configMapRef: ConfigMap default/bundles not found; its last good version (generation 1) stays in force',
        },
      ]),
    );
    expect(ask(e, 'anything').approved).toBe(false);
  });
});
