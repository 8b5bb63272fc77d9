import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { podObj, setPodReady, useControllerCluster } from './fixtures.js';
import { arr, meta, nameOf, obj } from './util.js';

const { cluster, controllers, api } = useControllerCluster();

function service(name: string, extraSpec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', labels: { team: 'a' } },
    spec: {
      selector: { app: name },
      ports: [
        { name: 'web', port: 80, targetPort: 'http' },
        { name: 'raw', port: 9000 },
      ],
      ...extraSpec,
    },
  };
}

function slices(svc: string): JsonObject[] {
  return api().list('endpointslices.discovery.k8s.io', {
    namespace: 'default',
    labelSelector: `kubernetes.io/service-name=${svc}`,
  }).items;
}

describe('EndpointSlice controller', () => {
  it('lists the pods with IPs that match the selector, with conditions and resolved ports', async () => {
    const svc = api().create('services', service('web'));
    const a = api().create('pods', podObj('web-a', { app: 'web' }));
    const b = api().create('pods', podObj('web-b', { app: 'web' }));
    api().create('pods', podObj('other', { app: 'other' }));
    api().create('pods', podObj('web-c', { app: 'web' })); // no IP yet: not listed
    setPodReady(api(), cluster().clock, a);
    setPodReady(api(), cluster().clock, b, false);
    await controllers().idle();
    const [slice, ...more] = slices('web');
    expect(more).toEqual([]);
    expect(nameOf(slice!)).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slice).toMatchObject({
      addressType: 'IPv4',
      metadata: {
        labels: {
          'kubernetes.io/service-name': 'web',
          'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
          team: 'a',
        },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Service',
            name: 'web',
            uid: meta(svc).uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      ports: [
        { name: 'web', port: 8080, protocol: 'TCP' },
        { name: 'raw', port: 9000, protocol: 'TCP' },
      ],
    });
    expect(arr(slice!.endpoints).map((e) => [obj(obj(e).targetRef).name, obj(e).conditions])).toEqual([
      ['web-a', { ready: true, serving: true, terminating: false }],
      ['web-b', { ready: false, serving: false, terminating: false }],
    ]);
  });

  it('follows pods leaving and the Service going away', async () => {
    api().create('services', service('web'));
    const a = api().create('pods', podObj('web-a', { app: 'web' }));
    setPodReady(api(), cluster().clock, a);
    await controllers().idle();
    expect(arr(slices('web')[0]!.endpoints)).toHaveLength(1);
    api().delete('pods', 'default', 'web-a');
    await controllers().idle();
    expect(slices('web')[0]!.endpoints).toEqual([]);
    api().delete('services', 'default', 'web');
    await controllers().idle();
    expect(slices('web')).toEqual([]);
  });

  it('leaves Services without a selector alone', async () => {
    api().create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext', namespace: 'default' },
      spec: { ports: [{ port: 80 }] },
    });
    await controllers().idle();
    expect(slices('ext')).toEqual([]);
  });
});

describe('endpoints controller (legacy Endpoints)', () => {
  it('lists ready pods under addresses and the others under notReadyAddresses, and goes with the Service', async () => {
    api().create('services', service('web'));
    const a = api().create('pods', podObj('web-a', { app: 'web' }));
    const b = api().create('pods', podObj('web-b', { app: 'web' }));
    const readyA = setPodReady(api(), cluster().clock, a);
    const notReadyB = setPodReady(api(), cluster().clock, b, false);
    await controllers().idle();
    const ep = api().get('endpoints', 'default', 'web');
    expect(meta(ep).labels).toEqual({ team: 'a', 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(ep.subsets).toEqual([
      {
        addresses: [
          {
            ip: obj(readyA.status).podIP,
            targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a', uid: meta(a).uid },
          },
        ],
        notReadyAddresses: [
          {
            ip: obj(notReadyB.status).podIP,
            targetRef: { kind: 'Pod', namespace: 'default', name: 'web-b', uid: meta(b).uid },
          },
        ],
        ports: [
          { name: 'web', port: 8080, protocol: 'TCP' },
          { name: 'raw', port: 9000, protocol: 'TCP' },
        ],
      },
    ]);
    api().delete('services', 'default', 'web');
    await controllers().idle();
    expect(api().tryGet('endpoints', 'default', 'web')).toBeUndefined();
  });
});
