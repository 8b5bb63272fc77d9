/**
 * List handling of strategic merge patch: merging by key, `$patch: delete|replace` items, the scalar
 * deletion list, and the element order rules (patch order first, then live order, interleaved as
 * apimachinery's mergeSortedSlice does — which is why a patch that adds a container puts it first).
 */
import { SmpFailure, goTypeName } from './strategic-errors.js';
import type { TypeNode } from './types.js';
import { hasOwn, isObject, goValue, type JsonObject } from './values.js';

export const DIRECTIVE = '$patch';

type ElemKind = 'map' | 'scalar';

/** The merge key of a list field, or '' when it has none. */
export function mergeKeyOf(t: TypeNode): string {
  return t.smp?.mergeKey ?? '';
}

export function isMergeList(t: TypeNode): boolean {
  return t.kind === 'list' && t.smp?.strategy === 'merge';
}

/** sliceElementType: every element of every slice has the same Go type, and none is a list. */
export function elementKind(...slices: unknown[][]): ElemKind {
  let first: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goTypeName(v);
      if (first === undefined) {
        if (Array.isArray(v)) throw new SmpFailure('invalid', 'lists of lists are not supported');
        first = t;
      } else if (t !== first) {
        throw new SmpFailure('internal', `list element types are not identical: ${goValue(slices)}`);
      }
    }
  }
  if (first === undefined) throw new SmpFailure('internal', 'no elements in any of the given slices');
  return first === 'map[string]interface {}' ? 'map' : 'scalar';
}

export function noMergeKey(m: JsonObject, key: string): SmpFailure {
  return new SmpFailure('internal', `map: ${goValue(m)} does not contain declared merge key: ${key}`);
}

function asMap(v: unknown): JsonObject {
  if (!isObject(v))
    throw new SmpFailure('internal', `expected a map[string]interface {}, but received a ${goTypeName(v)}`);
  return v;
}

/** Position of `v` in `list`: by merge key value for maps, by value for scalars. */
function indexIn(list: readonly unknown[], v: unknown, mergeKey: string, kind: ElemKind): number {
  if (kind !== 'map') return list.indexOf(v);
  const want = isObject(v) ? v[mergeKey] : undefined;
  return list.findIndex((item) => isObject(item) && item[mergeKey] === want);
}

/** Sorts by position in `order` (stable); for maps, `$patch: delete` items go last. */
function normalizeSliceOrder(
  toSort: unknown[],
  order: readonly unknown[],
  mergeKey: string,
  kind: ElemKind,
): unknown[] {
  let keep = toSort;
  let deletes: unknown[] = [];
  if (kind === 'map') {
    for (const list of [toSort, order]) {
      for (const item of list) if (!hasOwn(asMap(item), mergeKey)) throw noMergeKey(item as JsonObject, mergeKey);
    }
    keep = toSort.filter((v) => (v as JsonObject)[DIRECTIVE] !== 'delete');
    deletes = toSort.filter((v) => (v as JsonObject)[DIRECTIVE] === 'delete');
  }
  const ranked = keep.map((v, i) => ({ v, i, at: indexIn(order, v, mergeKey, kind) }));
  ranked.sort((a, b) => (a.at >= 0 && b.at >= 0 && a.at !== b.at ? a.at - b.at : a.i - b.i));
  return [...ranked.map((r) => r.v), ...deletes];
}

/** Interleaves live-only items with patch items, keeping each side's order (mergeSortedSlice). */
function mergeSorted(
  left: unknown[],
  right: unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElemKind,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Splits `merged` into items named by `by` and items only the live object has. */
export function partition(merged: unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of merged) {
    let found: boolean;
    if (mergeKey) {
      const m = asMap(v);
      if (!hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      found = by.some((b) => isObject(b) && hasOwn(b, mergeKey) && b[mergeKey] === m[mergeKey]);
    } else {
      found = by.includes(v);
    }
    (found ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElemKind,
): unknown[] {
  const p = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSorted(s, p, serverOrder, mergeKey, kind);
}

export type MapMerger = (original: JsonObject, patch: JsonObject, t: TypeNode) => JsonObject;
export type Fresh = (v: unknown) => unknown;

/** mergeSlice: merges a merge-strategy list; `isDeleteList` marks a `$deleteFromPrimitiveList` value. */
export function mergeSlice(
  original: unknown[],
  patch: unknown[],
  listType: TypeNode,
  isDeleteList: boolean,
  mergeMap: MapMerger,
  fresh: Fresh,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  const mergeKey = mergeKeyOf(listType);
  const elemType: TypeNode = listType.kind === 'list' ? listType.elem : listType;
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [...new Set([...original, ...patch])];
  } else {
    if (!mergeKey) throw new SmpFailure('internal', 'cannot merge lists without merge key for type struct');
    [original, patch] = applySpecialElements(original, patch, mergeKey);
    merged = mergeByKey(original, patch, mergeKey, elemType, mergeMap, fresh);
  }
  const [inPatch, serverOnly] = partition(merged, patch, kind === 'map' ? mergeKey : '');
  return normalizeElementOrder(inPatch, serverOnly, patch, original, kind === 'map' ? mergeKey : '', kind);
}

/** Handles `$patch` items: delete removes live items with that key, replace drops the live list. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasOwn(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = m[DIRECTIVE];
    if (d === 'delete') {
      if (!hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      original = original.filter(
        (item) => !(isObject(item) && hasOwn(item, mergeKey) && item[mergeKey] === m[mergeKey]),
      );
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw new SmpFailure('internal', 'merging lists cannot yet be specified in the patch');
    } else {
      throw new SmpFailure('internal', `unknown patch type: ${goValue(d)} in map: ${goValue(m)}`);
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function mergeByKey(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  elemType: TypeNode,
  mergeMap: MapMerger,
  fresh: Fresh,
): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
    const at = out.findIndex((item) => isObject(item) && hasOwn(item, mergeKey) && item[mergeKey] === m[mergeKey]);
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, m, elemType);
    else out.push(fresh(m));
  }
  return out;
}

/**
 * validatePatchWithSetOrderList: the patch list's items (directives aside) must appear in the
 * `$setElementOrder` list, in the same relative order.
 */
export function validateOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) items = patchList.filter((v) => asMap(v)[DIRECTIVE] !== 'delete');
  let pi = 0;
  let si = 0;
  while (pi < items.length && si < order.length) {
    const item = items[pi];
    if (isObject(item) && hasOwn(item, DIRECTIVE)) {
      pi++;
      continue;
    }
    if (keyEqual(item, order[si], mergeKey)) pi++;
    si++;
  }
  if (pi < items.length && si >= order.length) {
    throw new SmpFailure(
      'internal',
      `The order in patch list:\n${goValue(patchList)}\n doesn't match $setElementOrder list:\n${goValue(order)}\n`,
    );
  }
}

function keyEqual(a: unknown, b: unknown, mergeKey: string): boolean {
  if (!mergeKey) return a === b;
  const l = asMap(a);
  const r = asMap(b);
  if (!hasOwn(l, mergeKey)) throw noMergeKey(l, mergeKey);
  if (!hasOwn(r, mergeKey)) throw noMergeKey(r, mergeKey);
  return l[mergeKey] === r[mergeKey];
}
