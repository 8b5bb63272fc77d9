import { describe, expect, it } from 'vitest';
import { PatchError } from './errors.js';
import { jsonMergePatch } from './merge.js';

describe('jsonMergePatch', () => {
  // RFC 7386 appendix A, for object targets (the apiserver only patches objects).
  it.each([
    { name: 'replaces a member', target: { a: 'b' }, patch: { a: 'c' }, want: { a: 'c' } },
    { name: 'adds a member', target: { a: 'b' }, patch: { b: 'c' }, want: { a: 'b', b: 'c' } },
    { name: 'deletes a member given null', target: { a: 'b' }, patch: { a: null }, want: {} },
    { name: 'deletes only the nulled member', target: { a: 'b', b: 'c' }, patch: { a: null }, want: { b: 'c' } },
    { name: 'replaces a list by a scalar', target: { a: ['b'] }, patch: { a: 'c' }, want: { a: 'c' } },
    { name: 'replaces a scalar by a list', target: { a: 'c' }, patch: { a: ['b'] }, want: { a: ['b'] } },
    {
      name: 'merges nested objects',
      target: { a: { b: 'c' } },
      patch: { a: { b: 'd', c: null } },
      want: { a: { b: 'd' } },
    },
    { name: 'replaces lists whole', target: { a: [{ b: 'c' }] }, patch: { a: [1] }, want: { a: [1] } },
    { name: 'keeps nulls already in the target', target: { e: null }, patch: { a: 1 }, want: { e: null, a: 1 } },
    {
      name: 'drops nulls inside new objects',
      target: {},
      patch: { a: { bb: { ccc: null } } },
      want: { a: { bb: {} } },
    },
    {
      name: 'keeps null list elements but prunes objects in lists',
      target: {},
      patch: { a: [null, { b: null, c: 1 }] },
      want: { a: [null, { c: 1 }] },
    },
    { name: 'ignores a null for a missing member', target: { a: 1 }, patch: { z: null }, want: { a: 1 } },
    { name: 'replaces an object by a scalar', target: { a: { b: 1 } }, patch: { a: 2 }, want: { a: 2 } },
    { name: 'is a no-op for an empty patch', target: { a: { b: 1 } }, patch: {}, want: { a: { b: 1 } } },
  ])('$name', ({ target, patch, want }) => {
    const before = JSON.stringify(target);
    expect(jsonMergePatch(target, patch)).toEqual(want);
    expect(JSON.stringify(target)).toBe(before);
  });

  it.each([
    { name: 'refuses a null patch as Invalid JSON Patch', patch: null, status: 400, message: 'Invalid JSON Patch' },
    { name: 'refuses a string patch as Invalid JSON Patch', patch: 'x', status: 400, message: 'Invalid JSON Patch' },
    { name: 'refuses a number patch as Invalid JSON Patch', patch: 3, status: 400, message: 'Invalid JSON Patch' },
    {
      name: 'reports an array patch as an invalid patched object',
      patch: [1, { a: null }],
      status: 422,
      message:
        ' "" is invalid: patch: Invalid value: "[1,{}]": json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
  ])('$name', ({ patch, status, message }) => {
    const err = catchError(() => jsonMergePatch({ a: 1 }, patch));
    expect(err.status).toBe(status);
    expect(err.message).toBe(message);
  });

  it('treats __proto__ in a patch as an ordinary member', () => {
    const out = jsonMergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

function catchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a PatchError');
}
