import { describe, expect, it } from 'vitest';
import { FieldSet, FieldSetError, comparePE, fieldPE, indexPE, keyPE, pathString, valuePE } from './fieldset.js';

const f = fieldPE;

describe('FieldSet encoding', () => {
  it('writes FieldsV1 with "." for nodes that are members and have children', () => {
    const s = FieldSet.of(
      [f('metadata'), f('labels'), f('app')],
      [f('spec'), f('containers'), keyPE({ name: 'web' })],
      [f('spec'), f('containers'), keyPE({ name: 'web' }), f('image')],
      [f('spec'), f('replicas')],
    );
    expect(s.toFieldsV1()).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {}, '.': {} } }, 'f:replicas': {} },
    });
  });

  it('reads back what it writes', () => {
    const json = {
      'f:spec': {
        'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } },
        'f:finalizers': { 'v:"a"': {} },
      },
      'f:list': { 'i:2': {} },
    };
    const s = FieldSet.fromFieldsV1(json);
    expect(s.has([f('spec'), f('ports'), 'k:{"port":80,"protocol":"TCP"}'])).toBe(true);
    expect(s.has([f('spec'), f('finalizers'), valuePE('a')])).toBe(true);
    expect(s.has([f('list'), indexPE(2)])).toBe(true);
    expect(s.has([f('spec')])).toBe(false);
    expect(FieldSet.fromFieldsV1(s.toFieldsV1()).equals(s)).toBe(true);
  });

  it('canonicalises key elements so spelling does not change identity', () => {
    const s = FieldSet.fromFieldsV1({ 'k:{ "protocol": "TCP", "port": 80 }': {} });
    expect(s.has([keyPE({ port: 80, protocol: 'TCP' })])).toBe(true);
  });

  it('drops element types it does not know, as structured-merge-diff does', () => {
    expect(FieldSet.fromFieldsV1({ 'x:future': {}, 'f:a': {} }).paths()).toEqual([[f('a')]]);
  });

  it.each([
    { name: 'rejects a key shorter than two characters', json: { f: {} } },
    { name: 'rejects a key without a colon', json: { fa: {} } },
    { name: 'rejects a key element that is not JSON', json: { 'k:{name': {} } },
    { name: 'rejects an index that is not a number', json: { 'i:x': {} } },
    { name: 'rejects a value that is not an object', json: { 'f:a': 1 } },
  ])('$name', ({ json }) => {
    expect(() => FieldSet.fromFieldsV1(json)).toThrow(FieldSetError);
  });
});

describe('FieldSet algebra', () => {
  const a = FieldSet.of([f('spec'), f('a')], [f('spec'), f('b')], [f('status')]);
  const b = FieldSet.of([f('spec'), f('b')], [f('spec'), f('c')]);

  it.each([
    {
      name: 'unions members at every level',
      got: () => a.union(b),
      want: [[f('status')], [f('spec'), f('a')], [f('spec'), f('b')], [f('spec'), f('c')]],
    },
    { name: 'intersects members at every level', got: () => a.intersection(b), want: [[f('spec'), f('b')]] },
    {
      name: 'subtracts members at every level',
      got: () => a.difference(b),
      want: [[f('status')], [f('spec'), f('a')]],
    },
    {
      name: 'subtracts whole subtrees in a recursive difference',
      got: () => a.recursiveDifference(FieldSet.of([f('spec')])),
      want: [[f('status')]],
    },
    {
      name: 'keeps only one top-level subtree',
      got: () => a.only(f('spec')),
      want: [
        [f('spec'), f('a')],
        [f('spec'), f('b')],
      ],
    },
  ])('$name', ({ got, want }) => {
    expect(got().paths()).toEqual(want);
  });

  it('says a node is covered when someone owns it or anything below it', () => {
    expect(a.covers([f('spec')])).toBe(true);
    expect(a.has([f('spec')])).toBe(false);
    expect(a.covers([f('metadata')])).toBe(false);
  });
});

describe('path elements', () => {
  it.each([
    { name: 'orders fields before keys, values and indices', x: f('z'), y: keyPE({ a: 1 }), sign: -1 },
    { name: 'orders numeric key values numerically', x: keyPE({ port: 9 }), y: keyPE({ port: 10 }), sign: -1 },
    { name: 'orders numbers before strings in values', x: valuePE(5), y: valuePE('a'), sign: -1 },
    { name: 'orders indices numerically', x: indexPE(10), y: indexPE(9), sign: 1 },
  ])('$name', ({ x, y, sign }) => {
    expect(Math.sign(comparePE(x, y))).toBe(sign);
  });

  it('prints paths the way conflict messages show them', () => {
    expect(pathString([f('spec'), f('containers'), keyPE({ name: 'app' }), f('image')])).toBe(
      '.spec.containers[name="app"].image',
    );
    expect(pathString([f('spec'), f('ports'), keyPE({ protocol: 'TCP', containerPort: 80 })])).toBe(
      '.spec.ports[containerPort=80,protocol="TCP"]',
    );
    expect(pathString([f('metadata'), f('finalizers'), valuePE('x')])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([f('list'), indexPE(3)])).toBe('.list[3]');
  });
});
