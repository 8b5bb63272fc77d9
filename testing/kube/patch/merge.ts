/**
 * JSON merge patch (RFC 7386), with the apiserver's edge cases: it runs evanphx/json-patch's MergePatch,
 * which refuses a null or scalar patch with "Invalid JSON Patch" and lets an array patch replace the whole
 * document (the object decoder then rejects it).
 */
import { badRequest, invalidPatchedObject } from './errors.js';
import { deepClone, isObject, setOwn, type JsonObject } from './values.js';

/** Applies `patch` to `target` and returns a new document; `target` is not modified. */
export function jsonMergePatch(target: JsonObject, patch: unknown): JsonObject {
  if (Array.isArray(patch)) {
    const text = JSON.stringify(pruneNulls(deepClone(patch)));
    throw invalidPatchedObject(text, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  }
  if (!isObject(patch)) throw badRequest('Invalid JSON Patch');
  const out = deepClone(target);
  mergeInto(out, patch);
  return out;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const pv = patch[key];
    if (pv === null) {
      delete doc[key];
      continue;
    }
    const dv = doc[key];
    if (isObject(dv) && isObject(pv) && Object.prototype.hasOwnProperty.call(doc, key)) {
      mergeInto(dv, pv);
      continue;
    }
    setOwn(doc, key, pruneNulls(deepClone(pv)));
  }
}

/**
 * Drops null members from objects at any depth; nulls that are array elements stay, as in evanphx's
 * pruneAryNulls, so `[1, null]` keeps its length.
 */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const item of v) pruneNulls(item);
    return v;
  }
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else pruneNulls(v[k]);
    }
  }
  return v;
}
