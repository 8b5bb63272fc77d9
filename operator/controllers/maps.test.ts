import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../platform/kube/client.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import type { Cache } from '../manager/types.js';
import {
  agentsOfSecret,
  connectorsOfSecret,
  licensesOfSecret,
  orchestratorsOfLicense,
  orchestratorsOfSecret,
  policiesOfGatewayPod,
} from './maps.js';
import {
  agentConfig,
  connector,
  license,
  orchestrator,
  policy,
  secret,
  withConnectionSecret,
  withDatabase,
  withLicense,
} from './test/builders.js';

/** A cache over fixed lists. */
function cacheOf(objects: KubeObject[]): Cache {
  const of = (ref: ResourceRef, ns?: string) =>
    objects.filter((o) => o.kind === ref.kind && (ns === undefined || o.metadata.namespace === ns));
  return {
    informer: () => {
      throw new Error('not used');
    },
    get: <T extends KubeObject>(ref: ResourceRef, ns: string, name: string) =>
      of(ref, ns).find((o) => o.metadata.name === name) as T | undefined,
    list: <T extends KubeObject>(ref: ResourceRef, ns?: string) => of(ref, ns) as T[],
  };
}

const cache = cacheOf([
  orchestrator('prod', withLicense('acme'), withDatabase('db')),
  orchestrator('dev'),
  agentConfig('travel'),
  license('acme', 'acme-key'),
  connector('orders', withConnectionSecret('pg')),
  policy('pii', 'package x'),
]);
const pod = (labels: Record<string, string>): KubeObject => ({
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels },
});

describe('watch maps', () => {
  it.each([
    {
      name: 'wakes the Orchestrators referencing a License',
      got: orchestratorsOfLicense(cache)({ ...license('acme', 'k'), kind: 'License' }),
      want: ['default/prod'],
    },
    {
      name: 'wakes the Orchestrators whose pods read a Secret',
      got: orchestratorsOfSecret(cache)(secret('db', {})),
      want: ['default/prod'],
    },
    {
      name: 'wakes no Orchestrator for an unrelated Secret',
      got: orchestratorsOfSecret(cache)(secret('other', {})),
      want: [],
    },
    {
      name: "wakes the agents when an Orchestrator's O-internal changes",
      got: agentsOfSecret(cache)(secret('prod-internal', {})),
      want: ['default/travel'],
    },
    {
      name: 'wakes the License whose key a Secret holds',
      got: licensesOfSecret(cache)(secret('acme-key', {})),
      want: ['default/acme'],
    },
    {
      name: 'wakes the Connector whose Secret changed',
      got: connectorsOfSecret(cache)(secret('pg', {})),
      want: ['default/orders'],
    },
    {
      name: 'wakes every Policy when a Steward gateway pod changes',
      got: policiesOfGatewayPod(cache)(
        pod({ 'app.kubernetes.io/name': 'steward', 'app.kubernetes.io/component': 'gateway' }),
      ),
      want: ['default/pii'],
    },
    {
      name: 'ignores the pods of other apps',
      got: policiesOfGatewayPod(cache)(pod({ 'app.kubernetes.io/component': 'gateway' })),
      want: [],
    },
  ])('$name', ({ got, want }) => expect(got).toEqual(want));
});
