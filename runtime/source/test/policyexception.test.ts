/**
 * PolicyExceptions through both sources, read by the policy engine's matcher: a manifest folder (watched, so a new
 * file applies without a restart) and the Kubernetes API (informer), where the 90-day limit is measured from the
 * object's creation.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { eventually } from '../../../testing/eventually.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { PolicyExceptions } from '../../policy/exceptions.js';
import { FolderSource, KubernetesSource } from '../index.js';

const DAY_MS = 86_400_000;
const doc = (name: string, spec: Record<string, unknown>, namespace = 'default') => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'PolicyException',
  metadata: { name, namespace },
  spec: {
    policies: ['builtin-pii'],
    match: { tenants: ['eu'] },
    reason: 'SEC-42',
    expiresAt: new Date(Date.now() + 7 * DAY_MS).toISOString(),
    ...spec,
  },
});
const euCall = { surface: 'llm', tenantId: 'eu' } as const;

describe('PolicyException from a manifest folder', () => {
  let dir: string;
  let source: FolderSource | undefined;
  let exceptions: PolicyExceptions | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'steward-polex-'));
  });
  afterEach(async () => {
    exceptions?.close();
    await source?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the kind, and a file added later applies without a restart', async () => {
    await writeFile(join(dir, 'a.yaml'), stringify(doc('eu-pii', {})));
    source = new FolderSource({ dirs: [dir], debounceMs: 20 });
    await source.ready();
    expect(source.list('PolicyException').map((e) => e.metadata.name)).toEqual(['eu-pii']);
    expect(source.get('PolicyException', 'eu-pii')?.spec.permanent).toBe(false);
    exceptions = new PolicyExceptions({ source });
    expect(exceptions.exceptionFor({ name: 'builtin-secrets' }, euCall)).toBeUndefined();

    await writeFile(join(dir, 'b.yaml'), stringify(doc('eu-secrets', { policies: ['builtin-secrets'] })));
    await eventually(() =>
      expect(exceptions!.exceptionFor({ name: 'builtin-secrets' }, euCall)?.name).toBe('eu-secrets'),
    );
  });

  it.each([
    { name: 'expired', spec: { expiresAt: new Date(Date.now() - DAY_MS).toISOString() }, message: /has passed/ },
    {
      name: 'too far',
      spec: { expiresAt: new Date(Date.now() + 91 * DAY_MS).toISOString() },
      message: /more than 90 days after now/,
    },
    { name: 'unmatched', spec: { match: {} }, message: /at least one field/ },
  ])('skips an exception that is $name, naming the field', async ({ spec, message }) => {
    await writeFile(join(dir, 'a.yaml'), stringify(doc('bad', spec)));
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(source.list('PolicyException')).toEqual([]);
    expect(source.issues()).toEqual([
      expect.objectContaining({
        file: join(dir, 'a.yaml'),
        field: expect.stringMatching(/^spec\./),
        message: expect.stringMatching(message),
      }),
    ]);
  });
});

describe('PolicyException from the Kubernetes API', () => {
  const kube = useTestCluster({ crds: 'crds/', client: 'polex-source-test' });
  let source: KubernetesSource | undefined;
  let exceptions: PolicyExceptions | undefined;
  afterEach(async () => {
    exceptions?.close();
    await source?.close();
    source = exceptions = undefined;
  });

  const start = async (client: KubeClient) => {
    source = new KubernetesSource({
      client,
      namespace: 'default',
      informer: { backoffMs: 20, maxBackoffMs: 100, watchTimeoutSeconds: 1 },
    });
    await source.ready();
    return source;
  };

  it('reads the kind from its informer and follows changes without a restart', async () => {
    const s = await start(kube.client);
    exceptions = new PolicyExceptions({ source: s });
    expect(exceptions.exceptionFor({ name: 'builtin-pii' }, euCall)).toBeUndefined();
    await kube.client.create(Resources.PolicyException, doc('eu-pii', {}) as KubeObject);
    await eventually(() => expect(exceptions!.exceptionFor({ name: 'builtin-pii' }, euCall)?.name).toBe('eu-pii'));
    await kube.client.delete(Resources.PolicyException, 'default', 'eu-pii');
    await eventually(() => expect(exceptions!.exceptionFor({ name: 'builtin-pii' }, euCall)).toBeUndefined());
  });

  it('turns an exception expiring more than 90 days after its creation into an issue', async () => {
    const s = await start(kube.client);
    const far = doc('far', { expiresAt: new Date(Date.now() + 91 * DAY_MS).toISOString() }) as KubeObject;
    await kube.client.create(Resources.PolicyException, far);
    await eventually(() =>
      expect(s.issues()).toEqual([
        expect.objectContaining({
          file: 'policyexceptions/default/far',
          field: 'spec.expiresAt',
          message: expect.stringContaining("after the object's creation"),
        }),
      ]),
    );
    expect(s.get('PolicyException', 'far')).toBeUndefined();
  });
});
