/**
 * Conformance scenarios with the real kubectl (/usr/bin/kubectl): discovery, CRD install and
 * Established, api-resources, short names, wide and watch output, describe with Events, finalizers,
 * and selectors. Each test gets a fresh HOME, so kubectl's discovery cache never leaks between tests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import { Kubectl } from './kubectl.js';
import { CRD_DIR, deployment } from './fixtures.js';

const kube = useTestCluster({ client: false });
let kubectl: Kubectl;

beforeEach(() => {
  kubectl = new Kubectl(kube.cluster.kubeconfig);
});
afterEach(() => kubectl.dispose());

async function installCrds(): Promise<void> {
  await kubectl.ok(['apply', '-f', `${CRD_DIR}/widgets.example.com.yaml`]);
  await kubectl.ok(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
}

const WIDGET = (name: string, extra = ''): string => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
${extra}spec:
  size: small
  replicas: 2
  endpoint: https://${name}.example.com
`;

describe('kubectl against the test server', () => {
  it('creates ConfigMaps and Secrets imperatively (protobuf request bodies)', async () => {
    await kubectl.ok(['create', 'configmap', 'imp', '--from-literal=a=1', '--from-literal=b=2']);
    await kubectl.ok(['create', 'secret', 'generic', 'sec', '--from-literal=password=s3cret']);
    expect(kube.cluster.store.get('configmaps', 'default', 'imp').data).toEqual({ a: '1', b: '2' });
    expect(kube.cluster.store.get('secrets', 'default', 'sec')).toMatchObject({
      type: 'Opaque',
      data: { password: Buffer.from('s3cret').toString('base64') },
    });
    expect(await kubectl.ok(['get', 'secret', 'sec', '--no-headers'])).toMatch(/^sec\s+Opaque\s+1\s+\d+s\n$/);
  });

  it('reports the server version and serves built-in discovery', async () => {
    expect(await kubectl.ok(['version', '-o', 'json'])).toContain('"gitVersion": "v1.32.0-steward"');
    const out = await kubectl.ok(['api-resources', '--no-headers']);
    expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(out).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
  });

  it('applies a CRD, waits for Established, and lists its resource with short names and categories', async () => {
    await installCrds();
    const res = await kubectl.ok(['api-resources', '--api-group=example.com', '--no-headers']);
    expect(res).toMatch(/^widgets\s+wg\s+example\.com\/v1\s+true\s+Widget$/m);
    await kubectl.ok(['apply', '-f', '-'], { stdin: WIDGET('w1') });
    const get = await kubectl.ok(['get', 'wg']);
    expect(get).toMatch(/^NAME\s+SIZE\s+REPLICAS\s+READY\s+AGE\nw1\s+small\s+2\s+\s+\d+s\n$/);
    const wide = await kubectl.ok(['get', 'widgets.example.com', '-o', 'wide']);
    expect(wide).toMatch(
      /^NAME\s+SIZE\s+REPLICAS\s+READY\s+ENDPOINT\s+AGE\nw1\s+small\s+2\s+https:\/\/w1\.example\.com\s+\d+s\n$/,
    );
    expect(await kubectl.ok(['get', 'examples', '-o', 'name'])).toBe('widget.example.com/w1\n');
  });

  it('rejects unknown fields under the default strict validation with the server message', async () => {
    await installCrds();
    const r = await kubectl.run(['apply', '-f', '-'], { stdin: `${WIDGET('bad')}  bogus: true\n` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"',
    );
    const warn = await kubectl.run(['apply', '--validate=warn', '-f', '-'], {
      stdin: `${WIDGET('warned')}  bogus: true\n`,
    });
    expect(warn.code).toBe(0);
    expect(warn.stderr).toContain('Warning: unknown field "spec.bogus"');
  });

  it('streams changes with get -w', async () => {
    await installCrds();
    await kubectl.ok(['apply', '-f', '-'], { stdin: WIDGET('first') });
    const w = kubectl.spawn(['get', 'widgets', '-w']);
    try {
      await w.waitFor(/NAME\s+SIZE.*\nfirst\s+small/);
      kube.cluster.store.create('widgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'second', namespace: 'default' },
        spec: { size: 'large' },
      });
      const out = await w.waitFor(/\nsecond\s+large\s+1/);
      expect(out.match(/NAME/g)).toHaveLength(1);
    } finally {
      w.child.kill('SIGTERM');
    }
  });

  it('describes an object with its Events', async () => {
    await installCrds();
    await kubectl.ok(['apply', '-f', '-'], { stdin: WIDGET('described') });
    const w = kube.cluster.store.get('widgets.example.com', 'default', 'described');
    const meta = w.metadata as { uid: string; resourceVersion: string };
    kube.cluster.store.create('events.events.k8s.io', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'described.1', namespace: 'default' },
      eventTime: '2030-01-01T00:00:00.000000Z',
      reportingController: 'steward.dev/operator',
      reportingInstance: 'op-1',
      action: 'Reconcile',
      reason: 'Provisioned',
      note: 'widget is ready',
      type: 'Normal',
      regarding: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: 'described',
        namespace: 'default',
        uid: meta.uid,
      },
    });
    const out = await kubectl.ok(['describe', 'widget', 'described']);
    expect(out).toMatch(/Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    expect(out).toMatch(/Normal\s+Provisioned\s+.*steward\.dev\/operator\s+widget is ready/);
  });

  it('keeps an object with a finalizer until the finalizer is removed', async () => {
    await installCrds();
    await kubectl.ok(['apply', '-f', '-'], { stdin: WIDGET('held', '  finalizers: ["example.com/hold"]\n') });
    await kubectl.ok(['delete', 'widget', 'held', '--wait=false']);
    const ts = await kubectl.ok(['get', 'widget', 'held', '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    expect(ts).toMatch(/^\d{4}-\d\d-\d\dT/);
    await kubectl.ok(['patch', 'widget', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const gone = await kubectl.run(['get', 'widget', 'held']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('Error from server (NotFound): widgets.example.com "held" not found');
  });

  it('scales a Deployment through /scale and reads pod logs through /log', async () => {
    kube.cluster.store.create('deployments.apps', deployment('web'));
    await kubectl.ok(['scale', 'deployment', 'web', '--replicas=3']);
    const d = kube.cluster.store.get('deployments.apps', 'default', 'web');
    expect(d.spec).toMatchObject({ replicas: 3 });
    expect((d.metadata as { generation: number }).generation).toBe(2);
    kube.cluster.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    kube.cluster.setLogProvider((ns, pod, container) => `${ns}/${pod}/${container}: hello\n`);
    expect(await kubectl.ok(['logs', 'p'])).toBe('default/p/c: hello\n');
    kube.cluster.setLogProvider(undefined);
  });

  it('filters with -l, --field-selector and -A', async () => {
    await kubectl.ok(['create', 'namespace', 'other']);
    const cm = (name: string, ns: string, tier: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels: {tier: ${tier}}\ndata: {k: v}\n---\n`;
    await kubectl.ok(['apply', '-f', '-'], {
      stdin: cm('a', 'default', 'web') + cm('b', 'default', 'db') + cm('c', 'other', 'web'),
    });
    expect(await kubectl.ok(['get', 'cm', '-l', 'tier in (web,cache)', '-o', 'name'])).toBe('configmap/a\n');
    expect(
      await kubectl.ok([
        'get',
        'cm',
        '-A',
        '-l',
        'tier=web',
        '--no-headers',
        '-o',
        'custom-columns=NS:.metadata.namespace,N:.metadata.name',
      ]),
    ).toMatch(/^default\s+a\nother\s+c\n$/);
    expect(
      await kubectl.ok([
        'get',
        'cm',
        '-A',
        '--field-selector',
        'metadata.namespace!=default,metadata.name=c',
        '-o',
        'name',
      ]),
    ).toBe('configmap/c\n');
    const bad = await kubectl.run(['get', 'cm', '--field-selector', 'data.k=v']);
    expect(bad.stderr).toContain('field label not supported: data.k');
  });
});
