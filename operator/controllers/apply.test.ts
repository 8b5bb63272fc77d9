import { describe, expect, it } from 'vitest';
import { contains, isUpToDate } from './apply.js';
import type { DesiredObject } from './meta.js';

const desired = (spec: Record<string, unknown>, labels = { a: '1' }): DesiredObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 's',
    namespace: 'ns',
    labels,
    ownerReferences: [
      { apiVersion: 'steward.dev/v1alpha1', kind: 'Orchestrator', name: 'o', uid: 'u', controller: true },
    ],
  },
  spec,
});

describe('contains', () => {
  it.each([
    {
      name: 'holds when the stored object adds defaults',
      want: { a: 1, b: { c: 'x' } },
      have: { a: 1, b: { c: 'x', d: 2 }, e: 3 },
      result: true,
    },
    { name: 'fails when a value differs', want: { a: 1 }, have: { a: 2 }, result: false },
    {
      name: 'compares arrays element by element with defaults inside',
      want: [{ name: 'x' }],
      have: [{ name: 'x', protocol: 'TCP' }],
      result: true,
    },
    {
      name: 'fails when an array has another length',
      want: [{ name: 'x' }],
      have: [{ name: 'x' }, { name: 'y' }],
      result: false,
    },
    { name: 'fails when a wanted field is missing', want: { a: { b: 1 } }, have: {}, result: false },
    { name: 'ignores undefined wanted fields', want: { a: undefined }, have: {}, result: true },
    {
      name: 'reads quantities the API server canonicalized as equal',
      want: { cpu: '0.5', memory: '1024Mi' },
      have: { cpu: '500m', memory: '1Gi' },
      result: true,
    },
    { name: 'tells different quantities apart', want: { cpu: '250m' }, have: { cpu: '500m' }, result: false },
  ])('$name', ({ want, have, result }) => expect(contains(want, have)).toBe(result));
});

describe('isUpToDate', () => {
  const stored = {
    ...desired({ ports: [{ port: 80 }] }),
    metadata: { ...desired({}).metadata, labels: { a: '1', extra: 'theirs' }, resourceVersion: '5' },
    spec: { ports: [{ port: 80, protocol: 'TCP' }], clusterIP: '10.0.0.1' },
  };

  it.each([
    { name: 'holds when labels, owner and spec are contained', d: desired({ ports: [{ port: 80 }] }), result: true },
    { name: 'fails when a label we set differs', d: desired({ ports: [{ port: 80 }] }, { a: '2' }), result: false },
    { name: 'fails when the spec we own differs', d: desired({ ports: [{ port: 81 }] }), result: false },
  ])('$name', ({ d, result }) => expect(isUpToDate(d, stored)).toBe(result));

  it('fails when our controller ownerReference is missing', () => {
    expect(
      isUpToDate(desired({ ports: [{ port: 80 }] }), {
        ...stored,
        metadata: { ...stored.metadata, ownerReferences: [] },
      }),
    ).toBe(false);
  });
});
