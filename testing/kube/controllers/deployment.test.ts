import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { podTemplateHash, fenceposts } from './deployment-util.js';
import { activePods, deploymentObj, readyAll, useControllerCluster } from './fixtures.js';
import { arr, meta, nameOf, obj } from './util.js';

const { cluster, controllers, api } = useControllerCluster();

function replicaSets(name: string): JsonObject[] {
  return api().list('replicasets.apps', { namespace: 'default', labelSelector: `app=${name}` }).items;
}

function deployment(name: string): JsonObject {
  return api().get('deployments.apps', 'default', name);
}

/** Marks pods ready as they appear until the rollout settles (what a kubelet does). */
async function settle(name: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await controllers().idle();
    if (readyAll(api(), cluster().clock, `app=${name}`) === 0) return;
  }
  throw new Error('the rollout did not settle');
}

function condition(o: JsonObject, type: string): JsonObject | undefined {
  return arr(obj(o.status).conditions)
    .map(obj)
    .find((c) => c.type === type);
}

describe('Deployment controller', () => {
  it('creates a ReplicaSet named by the pod-template-hash, with revision 1, and completes the rollout', async () => {
    api().create('deployments.apps', deploymentObj('web', { replicas: 3 }));
    await settle('web');
    const [rs] = replicaSets('web');
    const hash = String(obj(meta(rs!).labels)['pod-template-hash']);
    expect(nameOf(rs!)).toBe(`web-${hash}`);
    expect(rs).toMatchObject({
      metadata: {
        annotations: {
          'deployment.kubernetes.io/revision': '1',
          'deployment.kubernetes.io/desired-replicas': '3',
          'deployment.kubernetes.io/max-replicas': '4',
        },
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
        template: { metadata: { labels: { 'pod-template-hash': hash } } },
      },
    });
    const d = deployment('web');
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(obj(d.status).unavailableReplicas).toBeUndefined();
    expect(obj(meta(d).annotations)['deployment.kubernetes.io/revision']).toBe('1');
    expect(condition(d, 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
    });
    expect(condition(d, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: `ReplicaSet "web-${hash}" has successfully progressed.`,
    });
    const ev = api().list('events', { namespace: 'default', fieldSelector: 'reason=ScalingReplicaSet' }).items;
    expect(ev.map((e) => e.message)).toEqual([`Scaled up replica set web-${hash} from 0 to 3`]);
  });

  it('keeps the hash stable for the same template and changes it with the template', () => {
    const t = obj(deploymentObj('web').spec).template;
    expect(podTemplateHash(t)).toBe(podTemplateHash(JSON.parse(JSON.stringify(t))));
    expect(podTemplateHash(t)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(podTemplateHash(obj(deploymentObj('web', { image: 'nginx:2' }).spec).template)).not.toBe(podTemplateHash(t));
    expect(podTemplateHash(t, 1)).not.toBe(podTemplateHash(t));
  });

  it.each([
    {
      name: 'percentages round surge up and unavailable down',
      replicas: 10,
      surge: '25%',
      unavailable: '25%',
      want: { maxSurge: 3, maxUnavailable: 2 },
    },
    {
      name: 'integers are taken as they are',
      replicas: 10,
      surge: 2,
      unavailable: 0,
      want: { maxSurge: 2, maxUnavailable: 0 },
    },
    {
      name: 'both zero makes maxUnavailable 1',
      replicas: 3,
      surge: '0%',
      unavailable: 0,
      want: { maxSurge: 0, maxUnavailable: 1 },
    },
  ])('fenceposts: $name', ({ replicas, surge, unavailable, want }) => {
    const d = deploymentObj('web', {
      replicas,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
    });
    expect(fenceposts(d)).toEqual(want);
  });

  it('rolls a new template out within maxSurge and maxUnavailable, keeping the old ReplicaSet at zero', async () => {
    api().create(
      'deployments.apps',
      deploymentObj('web', {
        replicas: 4,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    await settle('web');
    api().patch('deployments.apps', 'default', 'web', {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
    });
    let maxPods = 0;
    for (let i = 0; i < 50; i++) {
      await controllers().idle();
      const pods = activePods(api(), 'app=web');
      maxPods = Math.max(maxPods, pods.length);
      const ready = pods.filter((p) => condition(p, 'Ready')?.status === 'True').length;
      expect(ready).toBeGreaterThanOrEqual(4); // maxUnavailable 0
      if (readyAll(api(), cluster().clock, 'app=web') === 0) break;
    }
    expect(maxPods).toBe(5); // maxSurge 1
    const rss = replicaSets('web').sort(
      (a, b) =>
        Number(obj(meta(a).annotations)['deployment.kubernetes.io/revision']) -
        Number(obj(meta(b).annotations)['deployment.kubernetes.io/revision']),
    );
    expect(rss.map((rs) => obj(rs.spec).replicas)).toEqual([0, 4]);
    expect(obj(meta(rss[1]!).annotations)['deployment.kubernetes.io/revision']).toBe('2');
    expect(deployment('web').status).toMatchObject({ replicas: 4, updatedReplicas: 4, availableReplicas: 4 });
    expect(condition(deployment('web'), 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
  });

  it('Recreate scales the old ReplicaSet to zero before the new one scales up', async () => {
    api().create('deployments.apps', deploymentObj('web', { replicas: 2, strategy: { type: 'Recreate' } }));
    await settle('web');
    api().patch('deployments.apps', 'default', 'web', {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
    });
    await controllers().idle();
    const images = activePods(api(), 'app=web').map((p) => obj(arr(obj(p.spec).containers)[0]).image);
    expect(images).toEqual(['nginx:2', 'nginx:2']);
    await settle('web');
    expect(activePods(api(), 'app=web')).toHaveLength(2);
    expect(deployment('web').status).toMatchObject({ replicas: 2, updatedReplicas: 2, availableReplicas: 2 });
  });

  it('scales with spec.replicas, and a paused Deployment scales but does not roll out', async () => {
    api().create('deployments.apps', deploymentObj('web', { replicas: 1 }));
    await settle('web');
    api().patch('deployments.apps', 'default', 'web', {
      spec: { paused: true, replicas: 3, template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
    });
    await settle('web');
    expect(replicaSets('web')).toHaveLength(1);
    expect(activePods(api(), 'app=web')).toHaveLength(3);
    expect(condition(deployment('web'), 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
    });
    api().patch('deployments.apps', 'default', 'web', { spec: { paused: false } });
    await settle('web');
    expect(replicaSets('web')).toHaveLength(2);
    expect(condition(deployment('web'), 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
  });

  it('scales mid-rollout in proportion (the documented 10 → 15 example: 8+5 becomes 11+7)', async () => {
    api().create(
      'deployments.apps',
      deploymentObj('web', {
        replicas: 10,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } },
      }),
    );
    await settle('web');
    // The new image never becomes ready: the rollout stops at 8 old + 5 new.
    api().patch('deployments.apps', 'default', 'web', {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:broken' }] } } },
    });
    await controllers().idle();
    const sizes = (): number[] =>
      replicaSets('web')
        .map((rs) => Number(obj(rs.spec).replicas))
        .sort((a, b) => b - a);
    expect(sizes()).toEqual([8, 5]);
    api().patch('deployments.apps', 'default', 'web', { spec: { replicas: 15 } });
    await controllers().idle();
    expect(sizes()).toEqual([11, 7]);
    const byRevision = (rev: string): JsonObject =>
      replicaSets('web').find((rs) => obj(meta(rs).annotations)['deployment.kubernetes.io/revision'] === rev)!;
    expect(obj(byRevision('1').spec).replicas).toBe(11);
    expect(obj(byRevision('2').spec).replicas).toBe(7);
  });

  it('keeps only revisionHistoryLimit old ReplicaSets', async () => {
    api().create('deployments.apps', deploymentObj('web', { replicas: 1, extraSpec: { revisionHistoryLimit: 1 } }));
    await settle('web');
    for (const image of ['nginx:2', 'nginx:3', 'nginx:4']) {
      api().patch('deployments.apps', 'default', 'web', {
        spec: { template: { spec: { containers: [{ name: 'app', image }] } } },
      });
      await settle('web');
    }
    const revisions = replicaSets('web')
      .map((rs) => obj(meta(rs).annotations)['deployment.kubernetes.io/revision'])
      .sort();
    expect(revisions).toEqual(['3', '4']);
  });

  it('reports ProgressDeadlineExceeded when pods never become ready within the deadline', async () => {
    cluster().clock.freeze();
    api().create('deployments.apps', deploymentObj('web', { replicas: 1, extraSpec: { progressDeadlineSeconds: 60 } }));
    await controllers().idle();
    cluster().clock.advance(61_000);
    controllers().resync();
    await controllers().idle();
    expect(condition(deployment('web'), 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
    });
  });
});
