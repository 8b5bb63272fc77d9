/**
 * The controllers with the real kubectl: imperative creation (protobuf bodies), rollout status, scale,
 * set image, rollout undo and restart, describe's events, and the three deletion propagation policies.
 * A watch-driven fake kubelet marks pods ready, so kubectl sees rollouts finish.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestCluster } from '../cluster.js';
import { useTestCluster } from '../fixture.js';
import type { JsonObject } from '../schema/types.js';
import { Kubectl } from '../test/kubectl.js';
import { activePods, fakeKubelet } from './fixtures.js';
import { startControllers, type Controllers } from './index.js';
import { arr, meta, obj } from './util.js';

const kube = useTestCluster({ client: false });
let controllers: Controllers;
let kubectl: Kubectl;
let kubelet: { stop(): void };

beforeEach(async () => {
  controllers = await startControllers({ api: kube.cluster.store, clock: kube.cluster.clock });
  kubelet = fakeKubelet(kube.cluster.store, kube.cluster.clock);
  kubectl = new Kubectl(kube.cluster.kubeconfig);
});
afterEach(async () => {
  kubelet.stop();
  await controllers.close();
  kubectl.dispose();
});

const api = (): TestCluster['store'] => kube.cluster.store;

function image(): unknown {
  return obj(arr(obj(obj(obj(api().get('deployments.apps', 'default', 'web').spec).template).spec).containers)[0])
    .image;
}

async function createAndRollOut(): Promise<void> {
  await kubectl.ok(['create', 'deployment', 'web', '--image=nginx:1', '--replicas=2', '--port=8080']);
  expect(await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s'])).toContain(
    'deployment "web" successfully rolled out',
  );
  await controllers.idle();
}

describe('controllers with kubectl', () => {
  it('kubectl create deployment (a protobuf body) rolls out, and get shows it ready', async () => {
    await createAndRollOut();
    expect(activePods(api(), 'app=web')).toHaveLength(2);
    expect(await kubectl.ok(['get', 'deployment', 'web', '--no-headers'])).toMatch(/^web\s+2\/2\s+2\s+2\s+/);
    expect(await kubectl.ok(['describe', 'deployment', 'web'])).toMatch(
      /ScalingReplicaSet\s+.*Scaled up replica set web-\w+ from 0 to 2/,
    );
  });

  it('kubectl scale changes the pod count', async () => {
    await createAndRollOut();
    await kubectl.ok(['scale', 'deployment/web', '--replicas=4']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    await controllers.idle();
    expect(activePods(api(), 'app=web')).toHaveLength(4);
  });

  it('kubectl set image, then rollout undo, goes back to the first template as revision 3', async () => {
    await createAndRollOut();
    await kubectl.ok(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    expect(image()).toBe('nginx:2');
    await kubectl.ok(['rollout', 'undo', 'deployment/web']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    await controllers.idle();
    expect(image()).toBe('nginx:1');
    expect(
      obj(meta(api().get('deployments.apps', 'default', 'web')).annotations)['deployment.kubernetes.io/revision'],
    ).toBe('3');
    const history = await kubectl.ok(['rollout', 'history', 'deployment/web']);
    expect(history).toMatch(/^2\s/m);
    expect(history).toMatch(/^3\s/m);
    expect(activePods(api(), 'app=web').map((p) => obj(arr(obj(p.spec).containers)[0]).image)).toEqual([
      'nginx:1',
      'nginx:1',
    ]);
  });

  it('kubectl rollout restart replaces every pod through a new ReplicaSet', async () => {
    await createAndRollOut();
    const before = activePods(api(), 'app=web').map((p) => meta(p).name);
    await kubectl.ok(['rollout', 'restart', 'deployment/web']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    await controllers.idle();
    const after = activePods(api(), 'app=web');
    expect(after).toHaveLength(2);
    for (const p of after) expect(before).not.toContain(meta(p).name);
    expect(api().list('replicasets.apps', { namespace: 'default' }).items).toHaveLength(2);
  });

  it('kubectl run creates a pod', async () => {
    await kubectl.ok(['run', 'solo', '--image=busybox', '--restart=Never']);
    await controllers.idle();
    expect(api().get('pods', 'default', 'solo').status).toMatchObject({ phase: 'Running' });
  });

  it.each([
    { cascade: 'background', rsLeft: 0, podsLeft: 0 },
    { cascade: 'foreground', rsLeft: 0, podsLeft: 0 },
    { cascade: 'orphan', rsLeft: 1, podsLeft: 2 },
  ])('kubectl delete --cascade=$cascade', async ({ cascade, rsLeft, podsLeft }) => {
    await createAndRollOut();
    await kubectl.ok(['delete', 'deployment', 'web', `--cascade=${cascade}`, '--wait=true', '--timeout=20s']);
    await controllers.idle();
    expect(api().tryGet('deployments.apps', 'default', 'web')).toBeUndefined();
    const rss: JsonObject[] = api().list('replicasets.apps', { namespace: 'default' }).items;
    expect(rss).toHaveLength(rsLeft);
    expect(activePods(api(), 'app=web')).toHaveLength(podsLeft);
  });
});
