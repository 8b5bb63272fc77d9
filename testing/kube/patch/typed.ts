/**
 * Typed walks of structured-merge-diff that read values: the field set a value sets (ToFieldSet), the
 * difference between two values (Compare), and the checks an applied configuration must pass before it
 * can be merged (ObjectToTyped).
 */
import { FieldSet, fieldPE, indexPE, keyPE, pathString, valuePE, type PathElement } from './fieldset.js';
import { DEDUCED, fieldOf, resolve, type ListType, type TypeNode } from './types.js';
import { deepEqual, isObject } from './values.js';

export type ItemKey = { pe: PathElement } | { error: string };

/** The path element of a list item: its key fields, its value, or (atomic lists) its index. */
export function listItemPE(t: ListType, item: unknown, index: number): ItemKey {
  if (t.listType === 'set') return { pe: valuePE(item) };
  if (t.listType !== 'map' || !t.keys?.length) return { pe: indexPE(index) };
  if (!isObject(item)) return { error: `element ${index}: expected map, got ${describe(item)}` };
  const fields: Record<string, unknown> = {};
  for (const k of t.keys) {
    const v = Object.prototype.hasOwnProperty.call(item, k) ? item[k] : t.keyDefaults?.[k];
    if (v === undefined || v === null) {
      return {
        error: `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
      };
    }
    fields[k] = v;
  }
  return { pe: keyPE(fields) };
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

/** Items of a non-atomic list by path element; later duplicates are ignored, unkeyable items skipped. */
export function indexItems(t: ListType, list: readonly unknown[]): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const k = listItemPE(t, item, i);
    if ('pe' in k && !out.has(k.pe)) out.set(k.pe, item);
  });
  return out;
}

/** ToFieldSet: leaves, list items and map entries that are not named struct fields. */
export function toFieldSet(value: unknown, t: TypeNode): FieldSet {
  const out = new FieldSet();
  collect(value, t, [], out);
  return out;
}

function collect(v: unknown, t: TypeNode, path: PathElement[], out: FieldSet): void {
  const rt = resolve(t, v);
  if (rt.kind === 'scalar') {
    out.insert(path);
  } else if (rt.kind === 'list') {
    if (rt.listType === 'atomic') out.insert(path);
    else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const k = listItemPE(rt, item, i);
        if (!('pe' in k)) return;
        path.push(k.pe);
        collect(item, rt.elem, path, out);
        out.insert(path);
        path.pop();
      });
    }
  } else if (rt.atomic) {
    out.insert(path);
  } else if (isObject(v)) {
    for (const key of Object.keys(v)) {
      const f = fieldOf(rt, key);
      if (!f) continue;
      path.push(fieldPE(key));
      collect(v[key], f.type, path, out);
      if (!f.named) out.insert(path);
      path.pop();
    }
  }
}

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

/** Compare: which paths `rhs` adds, removes or changes relative to `lhs` (undefined = absent). */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  walkCompare(lhs, rhs, t, [], c);
  return c;
}

function leaf(lhs: unknown, rhs: unknown, path: PathElement[], c: Comparison): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
}

function walkCompare(lhs: unknown, rhs: unknown, t: TypeNode, path: PathElement[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const rl = resolve(t, lhs);
  const rr = resolve(t, rhs);
  const rt = rhs === undefined ? rl : rr;
  if (lhs !== undefined && rhs !== undefined && rl.kind !== rr.kind) return leaf(lhs, rhs, path, c);
  if (rt.kind === 'scalar') return leaf(lhs, rhs, path, c);
  if (rt.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const empty = !l?.length && !r?.length;
    if (rt.listType === 'atomic' || empty || (lhs !== undefined && !l) || (rhs !== undefined && !r))
      return leaf(lhs, rhs, path, c);
    const li = indexItems(rt, l ?? []);
    const ri = indexItems(rt, r ?? []);
    for (const pe of new Set([...li.keys(), ...ri.keys()])) {
      path.push(pe);
      walkCompare(li.get(pe), ri.get(pe), rt.elem, path, c);
      path.pop();
    }
  } else {
    const l = isObject(lhs) ? lhs : undefined;
    const r = isObject(rhs) ? rhs : undefined;
    const empty = (!l || Object.keys(l).length === 0) && (!r || Object.keys(r).length === 0);
    if (rt.atomic || empty || (lhs !== undefined && !l) || (rhs !== undefined && !r)) return leaf(lhs, rhs, path, c);
    for (const key of new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})])) {
      const f = fieldOf(rt, key);
      path.push(fieldPE(key));
      walkCompare(
        l && hasKey(l, key) ? l[key] : undefined,
        r && hasKey(r, key) ? r[key] : undefined,
        f?.type ?? DEDUCED,
        path,
        c,
      );
      path.pop();
    }
  }
  // A non-leaf node that appears or disappears is itself added or removed (postItemHook).
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function hasKey(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * The checks ObjectToTyped makes on an applied configuration: declared fields (for schemas that declare
 * them), list shapes, key fields present and unique. Returns messages prefixed by the offending path.
 */
export function validateApplied(value: unknown, t: TypeNode): string[] {
  const errs: string[] = [];
  check(value, t, [], errs);
  return errs;
}

function check(v: unknown, t: TypeNode, path: PathElement[], errs: string[]): void {
  if (v === null || v === undefined) return;
  const rt = resolve(t, v);
  const at = () => (path.length ? `${pathString(path)}: ` : '');
  if (rt.kind === 'map') {
    if (!isObject(v)) {
      errs.push(`${at()}expected map, got ${describe(v)}`);
      return;
    }
    for (const key of Object.keys(v)) {
      const f = fieldOf(rt, key);
      path.push(fieldPE(key));
      if (!f) errs.push(`${pathString(path)}: field not declared in schema`);
      else check(v[key], f.type, path, errs);
      path.pop();
    }
  } else if (rt.kind === 'list') {
    if (!Array.isArray(v)) {
      errs.push(`${at()}expected list, got ${describe(v)}`);
      return;
    }
    const seen = new Set<PathElement>();
    v.forEach((item, i) => {
      const k = rt.listType === 'atomic' ? { pe: indexPE(i) } : listItemPE(rt, item, i);
      if (!('pe' in k)) {
        errs.push(`${at()}${k.error}`);
        return;
      }
      if (seen.has(k.pe)) errs.push(`${at()}duplicate entries for key ${pathString([k.pe])}`);
      seen.add(k.pe);
      path.push(k.pe);
      check(item, rt.elem, path, errs);
      path.pop();
    });
  } else if (isObject(v) || Array.isArray(v)) {
    errs.push(`${at()}expected scalar, got ${describe(v)}`);
  }
}
