import { describe, expect, it } from 'vitest';
import { PatchError } from './errors.js';
import { strategicMergePatch } from './strategic.js';
import { builtinTypeOrLoose } from './strategic-meta.js';

type Doc = Record<string, unknown>;

const DEPLOYMENT = builtinTypeOrLoose('apps', 'Deployment');
const SERVICE = builtinTypeOrLoose('', 'Service');
const POD = builtinTypeOrLoose('', 'Pod');

/** A Deployment whose pod spec is `podSpec`. */
function deployment(podSpec: Doc, extra: Doc = {}): Doc {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 1, ...extra, template: { spec: podSpec } },
  };
}

function podSpecOf(d: Doc): Doc {
  return ((d.spec as Doc).template as Doc).spec as Doc;
}

const c = (name: string, image: string, more: Doc = {}): Doc => ({ name, image, ...more });

describe('strategicMergePatch on pod specs', () => {
  it.each<{ name: string; live: Doc; patch: Doc; want: Doc }>([
    {
      name: 'merges containers by name and puts new ones first',
      live: { containers: [c('a', 'a:1'), c('b', 'b:1')] },
      patch: { containers: [c('new', 'n:1'), { name: 'a', image: 'a:2' }] },
      want: { containers: [c('new', 'n:1'), c('a', 'a:2'), c('b', 'b:1')] },
    },
    {
      name: 'orders containers by $setElementOrder',
      live: { containers: [c('a', 'a:1'), c('b', 'b:1')] },
      patch: {
        '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }, { name: 'z' }],
        containers: [c('z', 'z:1')],
      },
      want: { containers: [c('a', 'a:1'), c('b', 'b:1'), c('z', 'z:1')] },
    },
    {
      name: 'deletes a container named by $patch: delete',
      live: { containers: [c('a', 'a:1'), c('b', 'b:1')] },
      patch: { containers: [{ name: 'b', $patch: 'delete' }] },
      want: { containers: [c('a', 'a:1')] },
    },
    {
      name: 'replaces the list given $patch: replace',
      live: { containers: [c('a', 'a:1'), c('b', 'b:1')] },
      patch: { containers: [{ $patch: 'replace' }, c('x', 'x:1')] },
      want: { containers: [c('x', 'x:1')] },
    },
    {
      name: 'merges env by name and ports by containerPort inside a container',
      live: {
        containers: [c('a', 'a:1', { env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80, name: 'http' }] })],
      },
      patch: {
        containers: [
          {
            name: 'a',
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '9' },
            ],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
        ],
      },
      want: {
        containers: [
          c('a', 'a:1', {
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '9' },
            ],
            ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
          }),
        ],
      },
    },
    {
      name: 'merges volumes by name and volumeMounts by mountPath',
      live: {
        volumes: [{ name: 'v1', emptyDir: {} }],
        containers: [c('a', 'a:1', { volumeMounts: [{ name: 'v1', mountPath: '/x' }] })],
      },
      patch: {
        volumes: [{ name: 'v2', configMap: { name: 'cm' } }],
        containers: [{ name: 'a', volumeMounts: [{ name: 'v2', mountPath: '/y' }] }],
      },
      want: {
        volumes: [
          { name: 'v2', configMap: { name: 'cm' } },
          { name: 'v1', emptyDir: {} },
        ],
        containers: [
          c('a', 'a:1', {
            volumeMounts: [
              { name: 'v2', mountPath: '/y' },
              { name: 'v1', mountPath: '/x' },
            ],
          }),
        ],
      },
    },
    {
      name: 'clears the other volume source with $retainKeys',
      live: { volumes: [{ name: 'v1', emptyDir: {} }] },
      patch: { volumes: [{ name: 'v1', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] },
      want: { volumes: [{ name: 'v1', configMap: { name: 'cm' } }] },
    },
    {
      name: 'replaces tolerations, which carry no patch strategy',
      live: { tolerations: [{ key: 'a', operator: 'Exists' }] },
      patch: { tolerations: [{ key: 'b', operator: 'Exists' }] },
      want: { tolerations: [{ key: 'b', operator: 'Exists' }] },
    },
    {
      name: 'deletes a field given null',
      live: { containers: [c('a', 'a:1', { command: ['sh'] })], nodeSelector: { disk: 'ssd' } },
      patch: { nodeSelector: null, containers: [{ name: 'a', command: null }] },
      want: { containers: [c('a', 'a:1')] },
    },
    {
      name: 'replaces container args whole',
      live: { containers: [c('a', 'a:1', { args: ['1', '2'] })] },
      patch: { containers: [{ name: 'a', args: ['3'] }] },
      want: { containers: [c('a', 'a:1', { args: ['3'] })] },
    },
    {
      name: 'adds a list that was absent, dropping directives inside it',
      live: {},
      patch: {
        initContainers: [c('init', 'i:1'), { name: 'gone', $patch: 'delete' }],
        '$setElementOrder/initContainers': [{ name: 'init' }],
      },
      want: { initContainers: [c('init', 'i:1')] },
    },
  ])('$name', ({ live, patch, want }) => {
    const cleanPatch = JSON.parse(JSON.stringify(patch)) as Doc;
    const before = deployment(live);
    const snapshot = JSON.stringify(before);
    const out = strategicMergePatch(before, { spec: { template: { spec: cleanPatch } } }, DEPLOYMENT);
    expect(podSpecOf(out)).toEqual(want);
    expect(JSON.stringify(before)).toBe(snapshot);
  });
});

describe('strategicMergePatch on other fields', () => {
  it.each<{ name: string; type: typeof POD; live: Doc; patch: unknown; want: Doc }>([
    {
      name: 'merges labels and deletes one given null',
      type: DEPLOYMENT,
      live: { metadata: { labels: { a: '1', b: '2' } } },
      patch: { metadata: { labels: { b: null, c: '3' } } },
      want: { metadata: { labels: { a: '1', c: '3' } } },
    },
    {
      name: 'unions finalizers, patch items first',
      type: DEPLOYMENT,
      live: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { finalizers: ['c', 'a'] } },
      want: { metadata: { finalizers: ['c', 'a', 'b'] } },
    },
    {
      name: 'removes finalizers listed in $deleteFromPrimitiveList',
      type: DEPLOYMENT,
      live: { metadata: { finalizers: ['a', 'b', 'c'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
      want: { metadata: { finalizers: ['a', 'c'] } },
    },
    {
      name: 'orders finalizers by $setElementOrder while deleting one',
      type: DEPLOYMENT,
      live: { metadata: { finalizers: ['a', 'b', 'c'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
      want: { metadata: { finalizers: ['c', 'a'] } },
    },
    {
      name: 'does nothing when deleting from a list that is absent',
      type: DEPLOYMENT,
      live: { metadata: {} },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
      want: { metadata: {} },
    },
    {
      name: 'clears rollingUpdate when the strategy retains only type',
      type: DEPLOYMENT,
      live: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      want: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      name: 'replaces a map given $patch: replace',
      type: DEPLOYMENT,
      live: { metadata: { labels: { a: '1', b: '2' } } },
      patch: { metadata: { labels: { $patch: 'replace', z: '9' } } },
      want: { metadata: { labels: { z: '9' } } },
    },
    {
      name: 'empties a map given $patch: delete',
      type: DEPLOYMENT,
      live: { metadata: { labels: { a: '1' } } },
      patch: { metadata: { labels: { $patch: 'delete' } } },
      want: { metadata: { labels: {} } },
    },
    {
      name: 'merges service ports by port',
      type: SERVICE,
      live: { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } },
      patch: { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      want: { spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] } },
    },
    {
      name: 'merges pod conditions by type',
      type: POD,
      live: {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'Initialized', status: 'True' },
          ],
        },
      },
      patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      want: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Initialized', status: 'True' },
          ],
        },
      },
    },
    {
      name: 'replaces a list by a scalar of another shape',
      type: DEPLOYMENT,
      live: { spec: { x: [1, 2] } },
      patch: { spec: { x: 'y' } },
      want: { spec: { x: 'y' } },
    },
    { name: 'treats a null patch as empty', type: DEPLOYMENT, live: { a: 1 }, patch: null, want: { a: 1 } },
  ])('$name', ({ type, live, patch, want }) => {
    expect(strategicMergePatch(live, patch, type)).toEqual(want);
  });
});

describe('strategicMergePatch failures', () => {
  const live = deployment({ containers: [c('a', 'a:1')] }, { strategy: { type: 'RollingUpdate' } });
  (live.metadata as Doc).finalizers = [];
  const pod = (spec: Doc): Doc => ({ spec: { template: { spec } } });

  it.each<{ name: string; patch: unknown; status: number; reason: string; message: string }>([
    {
      name: 'answers 400 for a patch that is not an object',
      patch: [1],
      status: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'answers 500 for a list item without its merge key',
      patch: pod({ containers: [{ image: 'x' }] }),
      status: 500,
      reason: '',
      message: 'map: map[image:x] does not contain declared merge key: name',
    },
    {
      name: 'answers 500 for $patch: merge in a list',
      patch: pod({ containers: [{ $patch: 'merge' }] }),
      status: 500,
      reason: '',
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: 'answers 500 for an unknown map directive',
      patch: pod({ $patch: 'frob' }),
      status: 500,
      reason: '',
      message: 'unknown patch type: frob in map: map[$patch:frob]',
    },
    {
      name: 'answers 400 for a malformed $deleteFromPrimitiveList key',
      patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
      status: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of primitive list',
    },
    {
      name: 'answers 400 for $retainKeys that is not a list',
      patch: { spec: { strategy: { $retainKeys: 'type' } } },
      status: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'answers 400 when the patch sets a key $retainKeys does not keep',
      patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 1 } } } },
      status: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'answers the generic 422 for a list of lists',
      patch: { metadata: { finalizers: [['a']] } },
      status: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'answers 500 for $setElementOrder that is not a list',
      patch: pod({ '$setElementOrder/containers': 'a' }),
      status: 500,
      reason: '',
      message: 'expected a []interface {}, but received a string',
    },
    {
      name: 'answers 500 when the patch list contradicts $setElementOrder',
      patch: pod({ '$setElementOrder/containers': [{ name: 'a' }], containers: [c('b', 'b:1')] }),
      status: 500,
      reason: '',
      message:
        "The order in patch list:\n[map[image:b:1 name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n",
    },
  ])('$name', ({ patch, status, reason, message }) => {
    let err: unknown;
    try {
      strategicMergePatch(live, patch, DEPLOYMENT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatchError);
    const pe = err as PatchError;
    expect([pe.status, pe.reason]).toEqual([status, reason]);
    if (status === 422) expect((pe.cause as Error).message).toBe('lists of lists are not supported');
    expect(pe.message).toBe(message);
  });
});
