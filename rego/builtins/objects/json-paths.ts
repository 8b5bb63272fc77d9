/**
 * json.filter and json.remove (OPA's topdown/json.go): paths are JSON-pointer-like strings
 * ("a/b/0", "~1" for "/", "~0" for "~") or arrays of segments; both build a tree of the selected
 * paths whose leaves are null, which is then intersected with (filter) or cut from (remove) the object.
 */
import { operandErrorText, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, keyOf, typeName, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinRegistry } from '../registry.js';

const pathsType = T.anyOf(T.array(T.anyOf(T.string, T.array())), T.set(T.anyOf(T.string, T.array())));

/** A path given as a slash-separated string or as an array of segments (OPA's parsePath). */
export function parsePath(p: Value, operand = 2): Value[] {
  if (typeof p === 'string') {
    if (p === '') return [];
    return p
      .replace(/^\/+/, '')
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  if (Array.isArray(p)) return [...p];
  throw operandErrorText(
    operand,
    `must be one of {set, array} containing string paths or array of path segments but got ${typeName(p)}`,
  );
}

function pathsOperand(args: readonly Value[]): Value[][] {
  const v = A.any(args, 1);
  if (Array.isArray(v)) return v.map((p) => parsePath(p));
  if (v instanceof RSet) return v.values().map((p) => parsePath(p));
  throw operandError(2, ['set', 'array'], v);
}

/** Tree of paths: inner nodes are objects keyed by segment, a null leaf selects the whole subtree. */
type PathTree = RObject;

/** OPA's pathsToObject: a shorter path swallows longer ones through the same prefix. */
export function pathsToTree(paths: readonly Value[][]): PathTree {
  const root = new RObject();
  // NB: RObject is immutable once built, so the tree is assembled from mutable maps first.
  type Node = Map<string, { key: Value; child: Node | null }>;
  const top: Node = new Map();
  const id = keyOf;
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = top;
    let done = false;
    for (let i = 0; i < path.length - 1 && !done; i++) {
      const k = path[i]!;
      const slot = node.get(id(k));
      if (slot === undefined) {
        const child: Node = new Map();
        node.set(id(k), { key: k, child });
        node = child;
      } else if (slot.child === null) {
        done = true;
      } else {
        node = slot.child;
      }
    }
    if (!done) {
      const last = path[path.length - 1]!;
      node.set(id(last), { key: last, child: null });
    }
  }
  const build = (n: Node, into: RObject): RObject => {
    for (const { key, child } of n.values()) into.set(key, child === null ? null : build(child, new RObject()));
    return into;
  };
  return build(top, root);
}

/** OPA's ast filterObject: keeps the parts of `v` that `filter` selects. */
export function filterValue(v: Value, filter: Value): Value {
  if (filter === null) return v;
  if (!(filter instanceof RObject)) return v;
  if (v === null || typeof v !== 'object' || v instanceof NumLit) return v;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (let i = 0; i < v.length; i++) {
      const sub = filter.get(String(i));
      if (sub !== undefined) out.push(filterValue(v[i]!, sub));
    }
    return out;
  }
  if (v instanceof RSet) {
    const out = new RSet();
    v.forEachUnordered((x) => {
      const sub = filter.get(x);
      if (sub !== undefined) out.add(filterValue(x, sub));
    });
    return out;
  }
  const out = new RObject();
  const obj = v;
  const [outer, inner] = obj.size < filter.size ? [obj, filter] : [filter, obj];
  outer.forEachUnordered((k) => {
    if (!inner.has(k)) return;
    out.set(k, filterValue(obj.get(k)!, filter.get(k)!));
  });
  return out;
}

/** OPA's jsonRemove: drops the leaves of `paths` from `v`; undefined when `v` itself is removed. */
export function removePaths(v: Value, paths: Value | undefined): Value | undefined {
  if (paths === undefined) return v;
  if (paths === null) return undefined;
  if (!(paths instanceof RObject)) return v;
  if (v === null || typeof v !== 'object' || v instanceof NumLit) return v;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (let i = 0; i < v.length; i++) {
      const kept = removePaths(v[i]!, paths.get(String(i)));
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }
  if (v instanceof RSet) {
    const out = new RSet();
    v.forEachUnordered((x) => {
      const kept = removePaths(x, paths.get(x));
      if (kept !== undefined) out.add(kept);
    });
    return out;
  }
  const out = new RObject();
  v.forEachUnordered((k, x) => {
    const kept = removePaths(x, paths.get(k));
    if (kept !== undefined) out.set(k, kept);
  });
  return out;
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'json.filter', args: [T.object(), pathsType], result: T.any }, (args) => {
    const o = A.obj(args, 0);
    return filterValue(o, pathsToTree(pathsOperand(args)));
  });
  r.add({ name: 'json.remove', args: [T.object(), pathsType], result: T.any }, (args) => {
    const o = A.obj(args, 0);
    return removePaths(o, pathsToTree(pathsOperand(args)));
  });
}
