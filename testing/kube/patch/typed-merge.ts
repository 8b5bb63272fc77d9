/**
 * Typed walks of structured-merge-diff that build values: merging an applied configuration into the live
 * object, and removing the fields an applier gave up.
 */
import { FieldSet, fieldPE, type Path, type PathElement } from './fieldset.js';
import { indexItems, listItemPE } from './typed.js';
import { DEDUCED, fieldOf, resolve, type ListType, type TypeNode } from './types.js';
import { deepClone, hasOwn, isObject, setOwn, type JsonObject } from './values.js';

/** Merge: `rhs` wins on leaves, maps merge key by key, associative lists merge item by item. */
export function mergeValues(lhs: unknown, rhs: unknown, t: TypeNode): unknown {
  if (rhs === undefined) return deepClone(lhs);
  if (lhs === undefined) return deepClone(rhs);
  const rl = resolve(t, lhs);
  const rr = resolve(t, rhs);
  if (rl.kind !== rr.kind) return deepClone(rhs);
  if (
    rr.kind === 'list' &&
    rr.listType !== 'atomic' &&
    Array.isArray(lhs) &&
    Array.isArray(rhs) &&
    (lhs.length || rhs.length)
  ) {
    return mergeLists(lhs, rhs, rr);
  }
  if (
    rr.kind === 'map' &&
    !rr.atomic &&
    isObject(lhs) &&
    isObject(rhs) &&
    (Object.keys(lhs).length || Object.keys(rhs).length)
  ) {
    const out: JsonObject = {};
    for (const k of Object.keys(lhs)) {
      const v = hasOwn(rhs, k) ? mergeValues(lhs[k], rhs[k], fieldOf(rr, k)?.type ?? DEDUCED) : deepClone(lhs[k]);
      setOwn(out, k, v);
    }
    for (const k of Object.keys(rhs)) if (!hasOwn(lhs, k)) setOwn(out, k, deepClone(rhs[k]));
    return out;
  }
  return deepClone(rhs);
}

/**
 * Merges two keyed lists in structured-merge-diff's order: live-only items stay where they are, applied
 * items follow the applied order, and a live item the applied list also holds waits for its turn there.
 */
function mergeLists(lhs: unknown[], rhs: unknown[], t: ListType): unknown[] {
  const lm = indexItems(t, lhs);
  const rm = indexItems(t, rhs);
  const lOrder = [...lm.keys()];
  const rOrder = [...rm.keys()];
  const shared = rOrder.filter((pe) => lm.has(pe));
  let next = shared.shift();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  while (li < lOrder.length || ri < rOrder.length) {
    const before = li + ri;
    if (li < lOrder.length && ri < rOrder.length) {
      const pe = lOrder[li]!;
      if (pe === rOrder[ri]) {
        out.push(mergeValues(lm.get(pe), rm.get(pe), t.elem));
        li++;
        ri++;
        next = shared.shift();
        continue;
      }
      if (rm.has(pe) && next !== undefined && next !== pe) {
        li++;
        continue;
      }
    }
    if (li < lOrder.length && !rm.has(lOrder[li]!)) {
      out.push(deepClone(lm.get(lOrder[li]!)));
      li++;
      continue;
    }
    if (ri < rOrder.length) {
      const pe = rOrder[ri]!;
      out.push(mergeValues(lm.get(pe), rm.get(pe), t.elem));
      ri++;
      if (next === pe) next = shared.shift();
    }
    // NB: a live item already emitted from the applied side can be left under `li`; step over it.
    if (li + ri === before) li++;
  }
  return out;
}

/**
 * The paths of `lastSet` to remove from `merged`: those that neither the applier's new set nor any other
 * manager keeps. A path is kept when it and each of its ancestors is a member of `owned`, or is a named
 * struct field with owned fields below it (structured-merge-diff's EnsureNamedFieldsAreMembers).
 */
export function pathsToPrune(merged: unknown, t: TypeNode, lastSet: FieldSet, owned: FieldSet): FieldSet {
  const out = new FieldSet();
  for (const path of lastSet.paths()) {
    const named = namedFlags(merged, t, path);
    if (!named) continue; // not in the object any more
    let kept = true;
    for (let i = 1; i <= path.length && kept; i++) {
      const prefix = path.slice(0, i);
      kept = owned.has(prefix) || (named[i - 1] === true && owned.covers(prefix));
    }
    if (!kept) out.insert(path);
  }
  return out;
}

/** For each element of `path` in `value`, whether it is a named struct field; undefined if absent. */
function namedFlags(value: unknown, t: TypeNode, path: Path): boolean[] | undefined {
  const flags: boolean[] = [];
  let v = value;
  let type = t;
  for (const pe of path) {
    const rt = resolve(type, v);
    if (rt.kind === 'map' && pe.startsWith('f:') && isObject(v)) {
      const key = pe.slice(2);
      if (!hasOwn(v, key)) return undefined;
      const f = fieldOf(rt, key);
      flags.push(f?.named ?? false);
      v = v[key];
      type = f?.type ?? DEDUCED;
    } else if (rt.kind === 'list' && Array.isArray(v)) {
      const item = indexItems(rt, v).get(pe);
      if (item === undefined) return undefined;
      flags.push(false);
      v = item;
      type = rt.elem;
    } else {
      return undefined;
    }
  }
  return flags;
}

/**
 * RemoveItems: drops every member of `set` from `value`. A map or list emptied this way becomes null in
 * its parent (structured-merge-diff's behaviour), which `dropNulls` then removes.
 */
export function removePaths(value: unknown, set: FieldSet, t: TypeNode): unknown {
  const rt = resolve(t, value);
  if (rt.kind === 'list' && rt.listType !== 'atomic' && Array.isArray(value)) {
    const items: unknown[] = [];
    value.forEach((item, i) => {
      const k = listItemPE(rt, item, i);
      if (!('pe' in k)) return void items.push(item);
      if (set.has([k.pe])) return;
      const sub = set.at([k.pe]);
      const kept = sub && !sub.isEmpty() ? removePaths(item, sub, rt.elem) : item;
      if (kept !== undefined) items.push(kept);
    });
    return items.length ? items : undefined;
  }
  if (rt.kind === 'map' && !rt.atomic && isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const pe: PathElement = fieldPE(key);
      if (set.has([pe])) continue;
      const sub = set.at([pe]);
      if (sub && !sub.isEmpty()) {
        const kept = removePaths(value[key], sub, fieldOf(rt, key)?.type ?? DEDUCED);
        setOwn(out, key, kept === undefined ? null : kept);
      } else {
        setOwn(out, key, value[key]);
      }
    }
    return Object.keys(out).length ? out : undefined;
  }
  return value;
}

/**
 * Drops null members of maps unless the schema says the field is nullable: the typed decode of a
 * built-in object, or the pruning of a custom resource, does the same on the real server. Nulls inside
 * `x-kubernetes-preserve-unknown-fields` data are data, and stay.
 */
export function dropNulls(value: unknown, t: TypeNode): void {
  const rt = resolve(t, value);
  if (rt.kind === 'map' && isObject(value)) {
    for (const key of Object.keys(value)) {
      const ft = fieldOf(rt, key)?.type ?? DEDUCED;
      if (value[key] === null && !ft.nullable && ft.kind !== 'deduced') delete value[key];
      else dropNulls(value[key], ft);
    }
  } else if (rt.kind === 'list' && Array.isArray(value)) {
    for (const item of value) dropNulls(item, rt.elem);
  }
}
