import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldSet, fieldPE, indexPE, keyPE, valuePE } from './fieldset.js';
import { applyPatch } from './index.js';
import { jsonMergePatch } from './merge.js';

const KIND = { group: 'example.com', version: 'v1', kind: 'Thing', builtin: false };
const NOW = () => new Date('2024-05-01T10:00:00Z');
const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__');
const spec = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const thing = (s: Record<string, unknown>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 'x' },
  spec: s,
});

function apply(current: Record<string, unknown> | null, config: unknown, manager: string) {
  return applyPatch({
    patchType: 'application/apply-patch+yaml',
    current,
    isCreate: current === null,
    patch: config,
    kind: KIND,
    fieldManager: manager,
    now: NOW,
  });
}

describe('properties', () => {
  it('a merge patch applied twice gives what it gives once', () => {
    fc.assert(
      fc.property(spec, spec, (target, patch) => {
        const once = jsonMergePatch(target, patch);
        expect(jsonMergePatch(once, patch)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });

  it('re-applying the same configuration changes nothing and a second applier of it shares ownership', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const first = apply(null, thing(s), 'a').object;
        expect(apply(first, thing(s), 'a').object).toEqual(first);
        const shared = apply(first, thing(s), 'b');
        expect(shared.object.spec).toEqual(first.spec);
      }),
      { numRuns: 150 },
    );
  });

  it('an applier that stops sending everything leaves no spec fields of its own behind', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const first = apply(null, thing(s), 'a').object;
        const emptied = apply(first, thing({}), 'a').object;
        expect(emptied.spec ?? {}).toEqual({});
      }),
      { numRuns: 150 },
    );
  });

  it('field sets survive a FieldsV1 round trip', () => {
    const pe = fc.oneof(
      key.map(fieldPE),
      fc.record({ name: key, port: fc.integer({ min: 0, max: 65535 }) }).map(keyPE),
      fc.oneof(fc.string(), fc.integer(), fc.boolean()).map(valuePE),
      fc.nat(20).map(indexPE),
    );
    fc.assert(
      fc.property(fc.array(fc.array(pe, { minLength: 1, maxLength: 4 }), { maxLength: 12 }), (paths) => {
        const s = FieldSet.of(...paths);
        expect(FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(s.toFieldsV1()))).equals(s)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
