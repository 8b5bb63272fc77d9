/** graph.reachable and graph.reachable_paths (OPA's topdown/reachable.go). */
import { operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RSet, keyOf, type RObject, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinContext, BuiltinRegistry } from '../registry.js';

const vertices = T.anyOf(T.set(), T.array());
const graphType = T.object(T.any, vertices);

/** Vertices of an edge list; anything but an array or set has none (OPA's foreachVertex). */
function each(v: Value | undefined): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  return [];
}

function initial(args: readonly Value[]): readonly Value[] {
  const v = A.any(args, 1);
  if (!Array.isArray(v) && !(v instanceof RSet)) throw operandError(2, '{array, set}', v);
  return each(v);
}

/** Breadth-first walk; a vertex counts as reached only when the graph has an entry for it. */
export function reachable(graph: RObject, start: readonly Value[], ctx: BuiltinContext): RSet {
  const reached = new RSet();
  const queue = [...start];
  for (let i = 0; i < queue.length; i++) {
    if ((i & 0x3ff) === 0x3ff) ctx.checkDeadline();
    const node = queue[i]!;
    const edges = graph.get(node);
    if (edges === undefined) continue;
    for (const n of each(edges)) if (!reached.has(n)) queue.push(n);
    reached.add(node);
  }
  return reached;
}

/**
 * Every path from the initial vertices, depth first: a path ends at a leaf, at a vertex missing from
 * the graph (which is not included), or just before it would revisit a vertex of the path.
 */
export function reachablePaths(graph: RObject, start: readonly Value[], ctx: BuiltinContext): RSet {
  const out = new RSet();
  const onPath = new Set<string>();
  let steps = 0;
  const build = (root: Value, path: Value[]): void => {
    if ((++steps & 0x3ff) === 0) ctx.checkDeadline();
    const edges = graph.get(root);
    if (edges === undefined) {
      out.add(path);
      return;
    }
    const here = [...path, root];
    const next = each(edges);
    if (next.length === 0) {
      out.add(here);
      return;
    }
    const k = keyOf(root);
    const added = !onPath.has(k);
    onPath.add(k);
    for (const n of next) {
      if (onPath.has(keyOf(n))) out.add(here);
      else build(n, here);
    }
    if (added) onPath.delete(k);
  };
  for (const node of start) {
    const edges = graph.get(node);
    if (edges === undefined) continue;
    const next = each(edges);
    if (next.length === 0) {
      out.add([node]);
      continue;
    }
    const k = keyOf(node);
    onPath.add(k);
    for (const n of next) build(n, [node]);
    onPath.delete(k);
  }
  return out;
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'graph.reachable', args: [graphType, vertices], result: T.set() }, (args, ctx) =>
    reachable(A.obj(args, 0), initial(args), ctx),
  );
  r.add({ name: 'graph.reachable_paths', args: [graphType, vertices], result: T.set(T.array()) }, (args, ctx) =>
    reachablePaths(A.obj(args, 0), initial(args), ctx),
  );
}
