/**
 * Strategic merge patch, server side (apimachinery's StrategicMergeMapPatch with MergeParallelList and
 * IgnoreUnmatchedNulls): maps merge, lists follow their patch strategy and merge key, and the directives
 * `$patch: replace|delete|merge`, `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>` shape the result. Only built-in kinds accept it; custom resources get
 * the apiserver's 415.
 */
import { badRequest } from './errors.js';
import {
  SmpFailure,
  BAD_PRIMITIVE_LIST,
  BAD_RETAIN_KEYS,
  BAD_SET_ELEMENT_ORDER,
  goTypeName,
  toPatchError,
} from './strategic-errors.js';
import {
  DIRECTIVE,
  elementKind,
  isMergeList,
  mergeKeyOf,
  mergeSlice,
  normalizeElementOrder,
  partition,
  validateOrderList,
} from './strategic-list.js';
import { childType, type TypeNode } from './types.js';
import { deepClone, goValue, hasOwn, isObject, jsonKind, setOwn, type JsonObject } from './values.js';

const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Applies a strategic merge patch to a copy of `original`; `type` is the kind's root type. */
export function strategicMergePatch(original: JsonObject, patch: unknown, type: TypeNode): JsonObject {
  if (patch === null) return deepClone(original);
  if (!isObject(patch))
    throw badRequest(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  try {
    return mergeMap(deepClone(original), deepClone(patch), type);
  } catch (err) {
    if (err instanceof SmpFailure) throw toPatchError(err);
    throw err;
  }
}

/** mergeMap: both arguments are owned copies and are modified. */
function mergeMap(original: JsonObject, patch: JsonObject, t: TypeNode): JsonObject {
  if (hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return fresh(patch) as JsonObject;
    }
    if (d === 'delete') return {};
    throw new SmpFailure('internal', `unknown patch type: ${goValue(d)} in map: ${goValue(patch)}`);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, t);
  for (const k of Object.keys(patch)) {
    let key = k;
    let isDeleteList = false;
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(k, DELETE_FROM_PRIMITIVE_LIST, BAD_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    const pv = patch[k];
    if (pv === null) {
      delete original[key];
      continue;
    }
    if (!hasOwn(original, key)) {
      // NB: apimachinery stores a deletion list as the value when the list is absent; deleting from
      // nothing is a no-op here instead.
      if (!isDeleteList) setOwn(original, key, fresh(pv));
      continue;
    }
    const ov = original[key];
    if (shape(ov) !== shape(pv)) {
      setOwn(original, key, fresh(pv));
      continue;
    }
    const ft = childType(t, key);
    if (isObject(ov)) {
      setOwn(original, key, ft.smp?.strategy === 'replace' ? fresh(pv) : mergeMap(ov, pv as JsonObject, ft));
    } else if (Array.isArray(ov)) {
      setOwn(original, key, mergeSliceField(ov, pv as unknown[], ft, isDeleteList));
    } else {
      setOwn(original, key, pv);
    }
  }
  return original;
}

function shape(v: unknown): 'map' | 'list' | 'scalar' {
  return isObject(v) ? 'map' : Array.isArray(v) ? 'list' : 'scalar';
}

function mergeSliceField(original: unknown[], patch: unknown[], t: TypeNode, isDeleteList: boolean): unknown[] {
  if (isMergeList(t)) return mergeSlice(original, patch, t, isDeleteList, mergeMap, fresh);
  // NB: a replace-strategy list given as a deletion list becomes that list, as in apimachinery.
  return patch;
}

/** `$retainKeys`: keys of the live map not listed are cleared; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new SmpFailure('bad', BAD_RETAIN_KEYS);
  const keep = new Set<unknown>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw new SmpFailure('bad', BAD_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * mergePatchIntoOriginal: each `$setElementOrder/<list>` merges its list now and orders the result by
 * the directive, then live order for items the directive does not name.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, t: TypeNode): void {
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[k];
    delete patch[k];
    if (!Array.isArray(order))
      throw new SmpFailure('internal', `expected a []interface {}, but received a ${goTypeName(order)}`);
    const key = extractKey(k, SET_ELEMENT_ORDER, BAD_SET_ELEMENT_ORDER);
    const foundOriginal = hasOwn(original, key);
    const foundPatch = hasOwn(patch, key);
    const originalList = foundOriginal ? listAt(original, key) : [];
    const patchList = foundPatch ? listAt(patch, key) : [];
    const ft = childType(t, key);
    const mergeKey = mergeKeyOf(ft);
    validateOrderList(patchList, order, mergeKey);
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeSliceField(originalList, patchList, ft, false);
    else if (foundOriginal) merged = originalList;
    else if (foundPatch) merged = fresh(patchList) as unknown[];
    else continue;
    const [inOrder, serverOnly] = partition(merged, order, mergeKey);
    const kind = elementKind(originalList, patchList);
    setOwn(original, key, normalizeElementOrder(inOrder, serverOnly, order, originalList, mergeKey, kind));
    delete patch[key];
  }
}

function listAt(m: JsonObject, key: string): unknown[] {
  const v = m[key];
  if (!Array.isArray(v)) throw new SmpFailure('internal', `expected a []interface {}, but received a ${goTypeName(v)}`);
  return v;
}

/** `<prefix>/<key>` → key (strings.SplitN on the first slash). */
function extractKey(s: string, prefix: string, malformed: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) throw new SmpFailure('bad', malformed);
  return s.slice(slash + 1);
}

/**
 * A patch value with no live counterpart. Directives are dropped and `$patch` items skipped,
 * and nulls (deletions of nothing) vanish, which is what the typed object decoded from it would hold.
 */
function fresh(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.filter((item) => !(isObject(item) && hasOwn(item, DIRECTIVE))).map(fresh);
  }
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (
      x === null ||
      k === DIRECTIVE ||
      k === RETAIN_KEYS ||
      k.startsWith(SET_ELEMENT_ORDER) ||
      k.startsWith(DELETE_FROM_PRIMITIVE_LIST)
    )
      continue;
    setOwn(out, k, fresh(x));
  }
  return out;
}
