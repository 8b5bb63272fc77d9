/**
 * json.patch: RFC 6902 as OPA implements it (topdown/json.go over internal/edittree). Patches apply
 * in order to an immutable document; any failing patch makes the whole result undefined, as in OPA.
 * Beyond RFC 6902 OPA lets paths be arrays of segments and lets a set member be its own path step.
 */
import { OperandError } from '../../errors.js';
import { T } from '../../types.js';
import { RObject, RSet, equal, type Value } from '../../value.js';
import * as A from '../args.js';
import { parsePath } from './json-paths.js';
import type { BuiltinRegistry } from '../registry.js';

/** Why a patch failed; never escapes json.patch (failures are undefined results). */
class PatchFailure extends Error {}

const fail = (msg: string): never => {
  throw new PatchFailure(msg);
};

const INT_TEXT = /^[+-]?\d+$/;

/** An array index from a path segment (OPA's edittree toIndex): "-" is one past the end. */
function toIndex(length: number, seg: Value): number {
  if (typeof seg === 'number') {
    if (!Number.isInteger(seg)) fail('invalid number type for indexing');
    return seg;
  }
  if (typeof seg === 'string') {
    if (seg === '-') return length;
    if (!INT_TEXT.test(seg)) fail('invalid string for indexing');
    if (seg !== '0' && seg.startsWith('0')) fail('leading zeros are not allowed in JSON paths');
    const i = Number(seg);
    if (!Number.isSafeInteger(i)) fail('invalid string for indexing');
    return i;
  }
  return fail('invalid type for indexing');
}

function child(container: Value, seg: Value): Value {
  if (container instanceof RObject) {
    const v = container.get(seg);
    return v === undefined ? fail('path does not exist in object') : v;
  }
  if (container instanceof RSet) return container.has(seg) ? seg : fail('path does not exist in set');
  if (Array.isArray(container)) {
    const i = toIndex(container.length, seg);
    return i >= 0 && i < container.length ? container[i]! : fail('path does not exist in array');
  }
  return fail('expected composite type');
}

function replaceChild(container: Value, seg: Value, value: Value): Value {
  if (container instanceof RObject) return copyObject(container).set(seg, value);
  if (container instanceof RSet) {
    const out = new RSet();
    container.forEachUnordered((x) => {
      if (!equal(x, seg)) out.add(x);
    });
    return out.add(value);
  }
  const arr = [...(container as Value[])];
  arr[toIndex(arr.length, seg)] = value;
  return arr;
}

function copyObject(o: RObject): RObject {
  const out = new RObject();
  o.forEachUnordered((k, v) => out.set(k, v));
  return out;
}

function insert(container: Value, key: Value, value: Value): Value {
  if (container instanceof RObject) return copyObject(container).set(key, value);
  if (container instanceof RSet) {
    if (!equal(key, value)) fail('set key does not equal value to be inserted');
    const out = new RSet();
    container.forEachUnordered((x) => out.add(x));
    return out.add(value);
  }
  if (Array.isArray(container)) {
    const i = toIndex(container.length, key);
    if (i < 0 || i > container.length) fail('index for array insertion out of bounds');
    return [...container.slice(0, i), value, ...container.slice(i)];
  }
  return fail('expected composite type');
}

function remove(container: Value, key: Value): Value {
  if (container instanceof RObject) {
    if (!container.has(key)) fail('cannot delete child key that does not exist');
    const out = new RObject();
    container.forEachUnordered((k, v) => {
      if (!equal(k, key)) out.set(k, v);
    });
    return out;
  }
  if (container instanceof RSet) {
    if (!container.has(key)) fail('cannot delete child key that does not exist');
    const out = new RSet();
    container.forEachUnordered((x) => {
      if (!equal(x, key)) out.add(x);
    });
    return out;
  }
  if (Array.isArray(container)) {
    const i = toIndex(container.length, key);
    if (i < 0 || i >= container.length) fail('index for array delete out of bounds');
    return [...container.slice(0, i), ...container.slice(i + 1)];
  }
  return fail('expected composite type');
}

/** Rebuilds `doc` with `edit` applied to the parent of the last path segment. */
function editAt(doc: Value, path: readonly Value[], i: number, edit: (parent: Value, key: Value) => Value): Value {
  const seg = path[i]!;
  if (i === path.length - 1) return edit(doc, seg);
  return replaceChild(doc, seg, editAt(child(doc, seg), path, i + 1, edit));
}

function getAt(doc: Value | undefined, path: readonly Value[]): Value {
  if (doc === undefined) return fail('deleted node');
  let cur = doc;
  for (const seg of path) cur = child(cur, seg);
  return cur;
}

/** `undefined` stands for a removed root document. */
type Doc = Value | undefined;

function add(doc: Doc, path: readonly Value[], value: Value): Doc {
  if (path.length === 0) return value;
  if (doc === undefined) return fail('deleted node');
  return editAt(doc, path, 0, (parent, key) => insert(parent, key, value));
}

function del(doc: Doc, path: readonly Value[]): Doc {
  if (doc === undefined) return fail('deleted node');
  if (path.length === 0) return undefined;
  return editAt(doc, path, 0, remove);
}

function attr(op: RObject, name: string): Value {
  const v = op.get(name);
  return v === undefined ? fail(`missing '${name}' attribute`) : v;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function applyOne(doc: Doc, patch: Value): Doc {
  if (!(patch instanceof RObject)) return fail('must be an array of JSON-Patch objects');
  const op = attr(patch, 'op');
  if (typeof op !== 'string') fail("attribute 'op' must be a string");
  if (!OPS.has(op as string)) fail(`unrecognized op '${String(op)}'`);
  const rawPath = attr(patch, 'path');
  const from = op === 'move' || op === 'copy' ? attr(patch, 'from') : undefined;
  const value = op === 'add' || op === 'replace' || op === 'test' ? attr(patch, 'value') : undefined;
  const path = parsePath(rawPath);
  switch (op) {
    case 'add':
      return add(doc, path, value!);
    case 'remove':
      return del(doc, path);
    case 'replace':
      return add(del(doc, path), path, value!);
    case 'move': {
      const src = parsePath(from!);
      const chunk = getAt(doc, src);
      return add(del(doc, src), path, chunk);
    }
    case 'copy':
      return add(doc, path, getAt(doc, parsePath(from!)));
    default:
      if (!equal(getAt(doc, path), value!)) fail('value from EditTree != patch value');
      return doc;
  }
}

/** Applies all patches, or returns undefined if any fails. */
export function applyPatches(doc: Value, patches: readonly Value[]): Value | undefined {
  let cur: Doc = doc;
  try {
    for (const p of patches) cur = applyOne(cur, p);
  } catch (e) {
    // Malformed patches and bad paths (PatchFailure, or parsePath's operand error) are undefined.
    if (e instanceof PatchFailure || e instanceof OperandError) return undefined;
    throw e;
  }
  return cur;
}

const patchType = T.array(T.record({ op: T.string, path: T.any }, { key: T.any, value: T.any }));

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'json.patch', args: [T.any, patchType], result: T.any }, (args) => {
    const doc = A.any(args, 0);
    return applyPatches(doc, A.arr(args, 1));
  });
}
