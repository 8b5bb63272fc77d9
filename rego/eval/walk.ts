/**
 * Refs into `data`: a walk down the rule tree and base data together, keyed lookups into partial rules where one
 * key is asked for, documents (documents.ts) where a whole node is, and navigation below them.
 */
import { RObject, type Value } from '../value.js';
import { DocumentEvaluator } from './documents.js';
import type { DataTermIR, NodeIR, PathPrefix, TermIR } from './ir.js';
import { lookup } from './iterate.js';
import type { Scope } from './scope.js';
import type { Frame, KV } from './terms.js';

export abstract class WalkEvaluator extends DocumentEvaluator {
  walkData(
    node: NodeIR | undefined,
    base: Value | undefined,
    path: readonly TermIR[],
    i: number,
    f: Frame,
    sc: Scope,
    k: KV,
  ): boolean {
    if (node !== undefined && sc.overridden?.has(node)) node = undefined;
    if (node === undefined) return base === undefined ? false : this.nav(base, path, i, f, sc, k);
    if (node.kind !== undefined || i === path.length) {
      if (i < path.length && this.keyable(node, base, sc) && this.single(path[i]!, f)) {
        const key = this.evalOne(path[i]!, f, sc);
        const v = key === undefined ? undefined : this.keyed(node, key, sc);
        return v === undefined ? false : this.nav(v, path, i + 1, f, sc, k);
      }
      const doc = this.docOf(node, base, sc);
      return doc === undefined ? false : this.nav(doc, path, i, f, sc, k);
    }
    const p = path[i]!;
    if (this.isPattern(p, f)) {
      const doc = this.docOf(node, base, sc);
      return doc === undefined ? false : this.nav(doc, path, i, f, sc, k);
    }
    if (this.single(p, f)) {
      const key = this.evalOne(p, f, sc);
      return key === undefined ? false : this.walkChild(node, base, key, path, i, f, sc, k);
    }
    return this.walkChildren(node, base, path, i, f, sc, k);
  }

  /** walkData below node for each value of path[i] (a method of its own: see evalTermK). */
  protected walkChildren(
    node: NodeIR,
    base: Value | undefined,
    path: readonly TermIR[],
    i: number,
    f: Frame,
    sc: Scope,
    k: KV,
  ): boolean {
    return this.evalTerm(path[i]!, f, sc, (key) => this.walkChild(node, base, key, path, i, f, sc, k));
  }

  /** walkData one level down: `key` is the value of path[i] below node. */
  protected walkChild(
    node: NodeIR,
    base: Value | undefined,
    key: Value,
    path: readonly TermIR[],
    i: number,
    f: Frame,
    sc: Scope,
    k: KV,
  ): boolean {
    const childBase = base === undefined ? undefined : lookup(base, key);
    if (typeof key === 'string') {
      const child = node.children.get(key);
      if (child !== undefined) return this.walkData(child, childBase, path, i + 1, f, sc, k);
    }
    return childBase === undefined ? false : this.nav(childBase, path, i + 1, f, sc, k);
  }

  /** The value of a ground data path (no continuation allocated): the evalRef fast path. */
  valueAt(t: DataTermIR, sc: Scope): Value | undefined {
    return this.walkDataOne(t, [], sc);
  }

  /**
   * Where a walk from the root starts: past the path's package prefix when there is no base data or `with`
   * override to merge along it (the usual case: `data.pkg.rule` costs one lookup, not one per key).
   */
  protected walkStart(ref: DataTermIR, sc: Scope): PathPrefix | undefined {
    if (sc.overridden !== undefined || !(sc.data instanceof RObject) || sc.data.size !== 0) return undefined;
    let p = ref.pre;
    if (p === undefined || p.root !== this.root) {
      const path = ref.path;
      let node = this.root;
      let depth = 0;
      // The same steps as walkDataOne's loop with no base data, stopped where it would do anything else.
      while (node.kind === undefined && depth < path.length) {
        const t = path[depth]!;
        const child = t.k === 'c' && typeof t.v === 'string' ? node.children.get(t.v) : undefined;
        if (child === undefined) break;
        node = child;
        depth++;
      }
      p = { root: this.root, node, depth };
      // NB: kept on the term (plans are immutable): a field read per walk, not a map lookup.
      ref.pre = p;
    }
    return p;
  }

  protected walkDataOne(ref: DataTermIR, f: Frame, sc: Scope): Value | undefined {
    const path = ref.path;
    let node: NodeIR | undefined = this.root;
    let base: Value | undefined = sc.data;
    let i = 0;
    const start = this.walkStart(ref, sc);
    if (start !== undefined) {
      node = start.node;
      base = undefined;
      i = start.depth;
    }
    for (;;) {
      if (node !== undefined && sc.overridden?.has(node)) node = undefined;
      if (node === undefined) return base === undefined ? undefined : this.navOne(base, path, i, f, sc);
      if (node.kind !== undefined || i === path.length) {
        if (i < path.length && this.keyable(node, base, sc)) {
          const key = this.evalOne(path[i]!, f, sc);
          const v = key === undefined ? undefined : this.keyed(node, key, sc);
          return v === undefined ? undefined : this.navOne(v, path, i + 1, f, sc);
        }
        const doc = this.docOf(node, base, sc);
        return doc === undefined ? undefined : this.navOne(doc, path, i, f, sc);
      }
      const key = this.evalOne(path[i]!, f, sc);
      if (key === undefined) return undefined;
      const childBase: Value | undefined = base === undefined ? undefined : lookup(base, key);
      const child: NodeIR | undefined = typeof key === 'string' ? node.children.get(key) : undefined;
      if (child === undefined) return childBase === undefined ? undefined : this.navOne(childBase, path, i + 1, f, sc);
      node = child;
      base = childBase;
      i++;
    }
  }
}
