import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import type { KubeObject } from '../client.js';
import { KubeEventRecorder } from '../events.js';
import { Resources } from '../resources.js';

const kube = useTestCluster({ client: 'events-test' });
let recorder: KubeEventRecorder;

beforeEach(() => {
  recorder = new KubeEventRecorder({
    client: kube.client,
    component: 'steward-test',
    host: 'pod-1',
    log: pino({ level: 'silent' }),
  });
});

interface CoreEvent {
  metadata: { name: string };
  reason: string;
  type: string;
  count: number;
  source: { component: string };
  involvedObject: { kind: string; name: string; uid: string };
}

const configMap = async (name: string): Promise<KubeObject> =>
  kube.client.create<KubeObject>(Resources.ConfigMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
  });
const events = async () =>
  (await kube.client.list(Resources.Event, { namespace: 'default' })).items as unknown as CoreEvent[];

describe('KubeEventRecorder', () => {
  it('writes a core/v1 Event about the object, with the source component', async () => {
    const cm = await configMap('a');
    recorder.event(cm, 'Normal', 'Created', 'made it');
    await recorder.flush();
    expect(await events()).toMatchObject([
      {
        type: 'Normal',
        reason: 'Created',
        count: 1,
        source: { component: 'steward-test' },
        involvedObject: { kind: 'ConfigMap', name: 'a', uid: cm.metadata.uid },
      },
    ]);
  });

  it('aggregates repeats of one object, reason and message into one Event with a count', async () => {
    const cm = await configMap('b');
    for (let i = 0; i < 3; i++) recorder.event(cm, 'Warning', 'Broken', 'it is broken');
    recorder.event(cm, 'Warning', 'Broken', 'broken differently');
    await recorder.flush();
    expect((await events()).map((e) => e.count).sort()).toEqual([1, 3]);
  });

  it('writes a new Event when the one it counted on has expired', async () => {
    const cm = await configMap('c');
    recorder.event(cm, 'Normal', 'Seen', 'seen');
    await recorder.flush();
    const [first] = await events();
    await kube.client.delete(Resources.Event, 'default', first!.metadata.name);
    recorder.event(cm, 'Normal', 'Seen', 'seen');
    await recorder.flush();
    expect(await events()).toMatchObject([{ reason: 'Seen', count: 1 }]);
  });

  it('never throws to the caller when the API server refuses the Event', async () => {
    kube.cluster.faults.inject({ verb: 'create', resource: 'events', status: 500, times: 1 });
    const cm: KubeObject = await configMap('d');
    expect(() => recorder.event(cm, 'Normal', 'Seen', 'seen')).not.toThrow();
    await recorder.flush();
    expect(await events()).toEqual([]);
  });
});
