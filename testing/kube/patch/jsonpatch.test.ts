import { describe, expect, it } from 'vitest';
import { PatchError } from './errors.js';
import { MAX_JSON_PATCH_OPERATIONS, applyJsonPatch } from './jsonpatch.js';

type Doc = Record<string, unknown>;

describe('applyJsonPatch', () => {
  // RFC 6902 appendix A, plus the evanphx behaviours the apiserver inherits.
  it.each<{ name: string; doc: Doc; ops: unknown[]; want: unknown }>([
    {
      name: 'adds an object member',
      doc: { foo: 'bar' },
      ops: [{ op: 'add', path: '/baz', value: 'qux' }],
      want: { foo: 'bar', baz: 'qux' },
    },
    {
      name: 'inserts into an array at an index',
      doc: { foo: ['bar', 'baz'] },
      ops: [{ op: 'add', path: '/foo/1', value: 'qux' }],
      want: { foo: ['bar', 'qux', 'baz'] },
    },
    {
      name: 'removes an object member',
      doc: { baz: 'qux', foo: 'bar' },
      ops: [{ op: 'remove', path: '/baz' }],
      want: { foo: 'bar' },
    },
    {
      name: 'removes an array element',
      doc: { foo: ['bar', 'qux', 'baz'] },
      ops: [{ op: 'remove', path: '/foo/1' }],
      want: { foo: ['bar', 'baz'] },
    },
    {
      name: 'replaces a value',
      doc: { baz: 'qux', foo: 'bar' },
      ops: [{ op: 'replace', path: '/baz', value: 'boo' }],
      want: { baz: 'boo', foo: 'bar' },
    },
    {
      name: 'moves a value between objects',
      doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      ops: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      want: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    },
    {
      name: 'moves an array element',
      doc: { foo: ['all', 'grass', 'cows', 'eat'] },
      ops: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      want: { foo: ['all', 'cows', 'eat', 'grass'] },
    },
    {
      name: 'passes a test of equal values',
      doc: { baz: 'qux', foo: ['a', 2, 'c'] },
      ops: [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      want: { baz: 'qux', foo: ['a', 2, 'c'] },
    },
    {
      name: 'adds a nested object',
      doc: { foo: 'bar' },
      ops: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      want: { foo: 'bar', child: { grandchild: {} } },
    },
    {
      name: 'ignores unknown members of an operation',
      doc: { foo: 'bar' },
      ops: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
      want: { foo: 'bar', baz: 'qux' },
    },
    {
      name: 'appends with -',
      doc: { foo: ['bar'] },
      ops: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
      want: { foo: ['bar', ['abc', 'def']] },
    },
    {
      name: 'unescapes ~1 and ~0',
      doc: { 'a/b': 1, 'm~n': 2 },
      ops: [
        { op: 'replace', path: '/a~1b', value: 3 },
        { op: 'remove', path: '/m~0n' },
      ],
      want: { 'a/b': 3 },
    },
    {
      name: 'compares objects in tests regardless of key order',
      doc: { a: { x: 1, y: 2 } },
      ops: [{ op: 'test', path: '/a', value: { y: 2, x: 1 } }],
      want: { a: { x: 1, y: 2 } },
    },
    {
      name: 'copies a value',
      doc: { a: { b: [1] } },
      ops: [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'add', path: '/c/b/-', value: 2 },
      ],
      want: { a: { b: [1] }, c: { b: [1, 2] } },
    },
    {
      name: 'counts negative indices from the end',
      doc: { l: [1, 2, 3] },
      ops: [{ op: 'remove', path: '/l/-1' }],
      want: { l: [1, 2] },
    },
    {
      name: 'adds null when the value member is missing',
      doc: {},
      ops: [{ op: 'add', path: '/a' }],
      want: { a: null },
    },
    {
      name: 'passes a null test for a missing member',
      doc: {},
      ops: [{ op: 'test', path: '/absent', value: null }],
      want: {},
    },
    {
      name: 'replaces the whole document with an empty path',
      doc: { a: 1 },
      ops: [{ op: 'replace', path: '', value: { b: 2 } }],
      want: { b: 2 },
    },
    {
      name: 'sets a resourceVersion guarded by a test',
      doc: { metadata: { resourceVersion: '5', labels: { a: 'x' } } },
      ops: [
        { op: 'test', path: '/metadata/resourceVersion', value: '5' },
        { op: 'add', path: '/metadata/labels/b', value: 'y' },
      ],
      want: { metadata: { resourceVersion: '5', labels: { a: 'x', b: 'y' } } },
    },
  ])('$name', ({ doc, ops, want }) => {
    const before = JSON.stringify(doc);
    expect(applyJsonPatch(doc, ops)).toEqual(want);
    expect(JSON.stringify(doc)).toBe(before);
  });

  // The apiserver answers every failed operation with the same generic 422; the reason stays in `cause`.
  it.each<{ name: string; doc: Doc; ops: unknown[]; cause: RegExp }>([
    {
      name: 'fails a test of different values',
      doc: { baz: 'qux' },
      ops: [{ op: 'test', path: '/baz', value: 'bar' }],
      cause: /testing value \/baz failed: test failed/,
    },
    {
      name: 'fails to add below a missing parent',
      doc: { foo: 'bar' },
      ops: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
      cause: /doc is missing path: "\/baz\/bat"/,
    },
    {
      name: 'fails to remove a missing member',
      doc: { a: 1 },
      ops: [{ op: 'remove', path: '/b' }],
      cause: /Unable to remove nonexistent key: b/,
    },
    {
      name: 'fails to replace a missing member',
      doc: { a: 1 },
      ops: [{ op: 'replace', path: '/b', value: 2 }],
      cause: /nonexistent key: b/,
    },
    {
      name: 'fails to insert past the end of an array',
      doc: { l: [1] },
      ops: [{ op: 'add', path: '/l/3', value: 2 }],
      cause: /Unable to access invalid index: 3/,
    },
    { name: 'fails an unknown operation', doc: {}, ops: [{ op: 'frob', path: '/a' }], cause: /Unexpected kind: frob/ },
    {
      name: 'fails an operation without a path',
      doc: {},
      ops: [{ op: 'add', value: 1 }],
      cause: /add operation failed to decode path/,
    },
    {
      name: 'fails to move from a missing member',
      doc: {},
      ops: [{ op: 'move', from: '/x', path: '/y' }],
      cause: /nonexistent key: x/,
    },
    {
      name: 'fails to move a value into itself',
      doc: { a: { b: 1 } },
      ops: [{ op: 'move', from: '/a', path: '/a/c' }],
      cause: /missing destination path/,
    },
    {
      name: 'fails to index an array with a name',
      doc: { l: [1] },
      ops: [{ op: 'replace', path: '/l/x', value: 2 }],
      cause: /not a proper array index/,
    },
  ])('$name', ({ doc, ops, cause }) => {
    const err = catchError(() => applyJsonPatch(doc, ops));
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    expect(String((err.cause as Error).message)).toMatch(cause);
  });

  it('stops at the first failing operation and leaves the input untouched', () => {
    const doc = { a: 1 };
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'add', path: '/b', value: 2 },
        { op: 'test', path: '/a', value: 9 },
      ]),
    ).toThrow(PatchError);
    expect(doc).toEqual({ a: 1 });
  });

  it.each([
    {
      name: 'refuses an object body as not a patch',
      body: { op: 'add' },
      message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    },
    {
      name: 'refuses a list of strings as not operations',
      body: ['add'],
      message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
    },
  ])('$name', ({ body, message }) => {
    const err = catchError(() => applyJsonPatch({}, body));
    expect(err.status).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe(message);
  });

  it('refuses more operations than the apiserver allows with 413', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
    const err = catchError(() => applyJsonPatch({ a: 1 }, ops));
    expect(err.status).toBe(413);
    expect(err.message).toBe(
      `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${MAX_JSON_PATCH_OPERATIONS + 1}`,
    );
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
