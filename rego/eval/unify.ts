/**
 * Unification and pattern matching: `a = b` between terms, and a term (possibly a pattern with unbound vars)
 * matched against a value. Bindings are made in the frame for the continuation and undone when it returns.
 */
import { RObject, equal, type Value } from '../value.js';
import type { TermIR } from './ir.js';
import type { Scope } from './scope.js';
import { TermEvaluator, type Frame, type K } from './terms.js';

export abstract class UnifyEvaluator extends TermEvaluator {
  unify(a: TermIR, b: TermIR, f: Frame, sc: Scope, k: K): boolean {
    const ap = this.isPattern(a, f);
    const bp = this.isPattern(b, f);
    if (!ap) {
      return this.evalTerm(a, f, sc, (va) =>
        bp ? this.match(b, va, f, sc, k) : this.evalTerm(b, f, sc, (vb) => (equal(va, vb) ? k() : false)),
      );
    }
    if (!bp) return this.evalTerm(b, f, sc, (vb) => this.match(a, vb, f, sc, k));
    if (a.k === 'arr' && b.k === 'arr') {
      if (a.items.length !== b.items.length) return false;
      return this.unifyPairs(
        a.items.map((x, i) => [x, b.items[i]!] as [TermIR, TermIR]),
        f,
        sc,
        k,
      );
    }
    if (a.k === 'obj' && b.k === 'obj') {
      if (a.items.length !== b.items.length) return false;
      const bk: Value[] = [];
      for (const [kt] of b.items) {
        const kv = this.plugOpt(kt, f, sc);
        if (kv === undefined) return false;
        bk.push(kv);
      }
      const pairs: [TermIR, TermIR][] = [];
      for (const [kt, vt] of a.items) {
        const kv = this.plugOpt(kt, f, sc);
        if (kv === undefined) return false;
        const j = bk.findIndex((x) => equal(x, kv));
        if (j < 0) return false;
        pairs.push([vt, b.items[j]![1]]);
      }
      return this.unifyPairs(pairs, f, sc, k);
    }
    return false;
  }

  protected unifyPairs(pairs: [TermIR, TermIR][], f: Frame, sc: Scope, k: K): boolean {
    if (pairs.length === 0) return k();
    let i = pairs.findIndex(([x, y]) => !this.isPattern(x, f) || !this.isPattern(y, f));
    if (i < 0) i = pairs.findIndex(([x, y]) => x.k !== 'v' && y.k !== 'v');
    if (i < 0) return false;
    const [x, y] = pairs[i]!;
    const rest = pairs.filter((_, j) => j !== i);
    return this.unify(x, y, f, sc, () => this.unifyPairs(rest, f, sc, k));
  }

  /** Matches a term (possibly a pattern) against a value, binding unbound vars. */
  match(p: TermIR, v: Value, f: Frame, sc: Scope, k: K): boolean {
    switch (p.k) {
      case 'v': {
        const cur = f[p.s];
        if (cur === undefined) {
          f[p.s] = v;
          try {
            return k();
          } finally {
            f[p.s] = undefined;
          }
        }
        return equal(cur, v) ? k() : false;
      }
      case 'c':
        return equal(p.v, v) ? k() : false;
      case 'arr':
        if (!Array.isArray(v) || v.length !== p.items.length) return false;
        return this.matchItems(p.items, v, 0, f, sc, k);
      case 'obj': {
        if (!(v instanceof RObject) || v.size !== p.items.length) return false;
        return this.matchEntries(p.items, v, 0, f, sc, k);
      }
      default:
        if (this.isPattern(p, f)) return false;
        return this.matchTerm(p, v, f, sc, k);
    }
  }

  /** match against a term to evaluate (a method of its own: see evalTermK). */
  protected matchTerm(p: TermIR, v: Value, f: Frame, sc: Scope, k: K): boolean {
    return this.evalTerm(p, f, sc, (pv) => (equal(pv, v) ? k() : false));
  }

  protected matchItems(items: readonly TermIR[], vs: readonly Value[], i: number, f: Frame, sc: Scope, k: K): boolean {
    if (i === items.length) return k();
    return this.match(items[i]!, vs[i]!, f, sc, () => this.matchItems(items, vs, i + 1, f, sc, k));
  }

  protected matchEntries(
    items: readonly (readonly [TermIR, TermIR])[],
    o: RObject,
    i: number,
    f: Frame,
    sc: Scope,
    k: K,
  ): boolean {
    if (i === items.length) return k();
    const [kt, vt] = items[i]!;
    return this.evalTerm(kt, f, sc, (key) => {
      const val = o.get(key);
      if (val === undefined) return false;
      return this.match(vt, val, f, sc, () => this.matchEntries(items, o, i + 1, f, sc, k));
    });
  }
}
