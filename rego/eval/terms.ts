/**
 * Term evaluation: values of terms (with enumeration where refs have unbound vars) and navigation
 * into collections; unification and pattern matching are in unify.ts. Bindings live in frames
 * (arrays indexed by slot) and are undone when the continuation returns.
 */
import { RegoEvalError } from '../errors.js';
import { RObject, RSet, equal, type Value } from '../value.js';
import type { ConstDocs } from './consts.js';
import type { BodyIR, DataTermIR, NodeIR, PathPrefix, TermIR } from './ir.js';
import { iterate, lookup } from './iterate.js';
import type { Scope, Shared } from './scope.js';

/** Continuation: called once per solution; returns true to stop the enumeration. */
export type K = () => boolean;
export type KV = (v: Value) => boolean;
export type Frame = (Value | undefined)[];

export abstract class TermEvaluator {
  constructor(
    readonly root: NodeIR,
    readonly sh: Shared,
    /** documents shared between evaluations of the same plan (see consts.ts) */
    readonly consts?: ConstDocs,
  ) {}

  abstract evalBody(body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean;
  protected abstract walkData(
    node: NodeIR | undefined,
    base: Value | undefined,
    path: readonly TermIR[],
    i: number,
    f: Frame,
    sc: Scope,
    k: KV,
  ): boolean;
  protected abstract walkDataOne(ref: DataTermIR, f: Frame, sc: Scope): Value | undefined;
  protected abstract walkStart(ref: DataTermIR, sc: Scope): PathPrefix | undefined;
  /** Matches a term (possibly a pattern) against a value, binding unbound vars (unify.ts). */
  abstract match(p: TermIR, v: Value, f: Frame, sc: Scope, k: K): boolean;

  /** True when the term has unbound vars in pattern positions (var, or inside array/object/set literals). */
  isPattern(t: TermIR, f: Frame): boolean {
    switch (t.k) {
      case 'v':
        return f[t.s] === undefined;
      // NB: loops, not some(callback): see evalTermK.
      case 'arr':
      case 'set':
        for (const x of t.items) if (this.isPattern(x, f)) return true;
        return false;
      case 'obj':
        for (const [a, b] of t.items) if (this.isPattern(a, f) || this.isPattern(b, f)) return true;
        return false;
      default:
        return false;
    }
  }

  /** Whether evaluating the term can yield at most one value (no unbound vars to enumerate). */
  single(t: TermIR, f: Frame): boolean {
    switch (t.k) {
      case 'c':
        return true;
      case 'v':
        return f[t.s] !== undefined;
      // constant keys (most of a path) are skipped without a call
      case 'input':
      case 'data':
        if (t.g === true) return true;
        for (const p of t.path) if (p.k !== 'c' && !this.single(p, f)) return false;
        return true;
      case 'ref':
        if (!this.single(t.head, f)) return false;
        for (const p of t.path) if (p.k !== 'c' && !this.single(p, f)) return false;
        return true;
      case 'arr':
      case 'set':
        for (const x of t.items) if (!this.single(x, f)) return false;
        return true;
      case 'obj':
        for (const [a, b] of t.items) if (!this.single(a, f) || !this.single(b, f)) return false;
        return true;
      default:
        return true;
    }
  }

  /**
   * The value of a single-valued term (see `single`), or undefined. The hot path: no
   * continuations are allocated for plain refs like `input.query` or `data.pkg.rule`.
   */
  evalOne(t: TermIR, f: Frame, sc: Scope): Value | undefined {
    switch (t.k) {
      case 'c':
        return t.v;
      case 'v':
        return f[t.s];
      case 'input':
        return sc.input === undefined ? undefined : this.navOne(sc.input, t.path, 0, f, sc);
      case 'data':
        return this.walkDataOne(t, f, sc);
      case 'ref': {
        const h = this.evalOne(t.head, f, sc);
        return h === undefined ? undefined : this.navOne(h, t.path, 0, f, sc);
      }
      case 'arr': {
        const out: Value[] = new Array(t.items.length);
        for (let i = 0; i < t.items.length; i++) {
          const v = this.evalOne(t.items[i]!, f, sc);
          if (v === undefined) return undefined;
          out[i] = v;
        }
        return out;
      }
      default:
        return this.plugOpt(t, f, sc);
    }
  }

  protected navOne(v: Value, path: readonly TermIR[], i: number, f: Frame, sc: Scope): Value | undefined {
    let cur: Value | undefined = v;
    for (let j = i; j < path.length && cur !== undefined; j++) {
      const key = this.evalOne(path[j]!, f, sc);
      if (key === undefined) return undefined;
      cur = lookup(cur, key);
    }
    return cur;
  }

  evalTerm(t: TermIR, f: Frame, sc: Scope, k: KV): boolean {
    switch (t.k) {
      case 'c':
        return k(t.v);
      case 'v': {
        const v = f[t.s];
        if (v === undefined) throw new Error(`internal error: var ${t.n} is unbound`);
        return k(v);
      }
      case 'input':
        if (sc.input === undefined) return false;
        if (this.single(t, f)) {
          const v = this.navOne(sc.input, t.path, 0, f, sc);
          return v === undefined ? false : k(v);
        }
        return this.nav(sc.input, t.path, 0, f, sc, k);
      case 'data':
        if (this.single(t, f)) {
          const v = this.walkDataOne(t, f, sc);
          return v === undefined ? false : k(v);
        }
        {
          const start = this.walkStart(t, sc);
          if (start !== undefined) return this.walkData(start.node, undefined, t.path, start.depth, f, sc, k);
        }
        return this.walkData(this.root, sc.data, t.path, 0, f, sc, k);
      case 'ref':
        if (this.single(t, f)) {
          const v = this.evalOne(t, f, sc);
          return v === undefined ? false : k(v);
        }
        return this.evalTermK(t, f, sc, k);
      default:
        return this.evalTermK(t, f, sc, k);
    }
  }

  /**
   * evalTerm for the terms that need a continuation of their own. NB: hot methods create no closures
   * (they call a method like this one that does): V8 allocates a method's closure context on every
   * call, whether or not the path that creates the closure is taken.
   */
  protected evalTermK(t: TermIR, f: Frame, sc: Scope, k: KV): boolean {
    switch (t.k) {
      case 'ref':
        return this.evalTerm(t.head, f, sc, (v) => this.nav(v, t.path, 0, f, sc, k));
      case 'arr':
        return this.evalItems(t.items, 0, [], f, sc, (vs) => k(vs));
      case 'set':
        return this.evalItems(t.items, 0, [], f, sc, (vs) => k(RSet.from(vs)));
      case 'obj': {
        const flat: TermIR[] = [];
        for (const [a, b] of t.items) flat.push(a, b);
        return this.evalItems(flat, 0, [], f, sc, (vs) => {
          const o = new RObject();
          for (let i = 0; i < vs.length; i += 2) o.set(vs[i]!, vs[i + 1]!);
          return k(o);
        });
      }
      case 'ac': {
        const out: Value[] = [];
        this.evalBody(t.body, 0, f, sc, () => {
          out.push(this.plug(t.head, f));
          return false;
        });
        return k(out);
      }
      case 'sc': {
        const out = new RSet();
        this.evalBody(t.body, 0, f, sc, () => {
          out.add(this.plug(t.head, f));
          return false;
        });
        return k(out);
      }
      case 'oc': {
        const out = new RObject();
        const loc = undefined;
        this.evalBody(t.body, 0, f, sc, () => {
          const key = this.plug(t.key, f);
          const val = this.plug(t.value, f);
          const prev = out.get(key);
          if (prev !== undefined && !equal(prev, val)) {
            throw new RegoEvalError('eval_conflict_error', 'object keys must be unique', loc);
          }
          out.set(key, val);
          return false;
        });
        return k(out);
      }
      default:
        // evalTerm's own cases (no continuation of their own)
        return this.evalTerm(t, f, sc, k);
    }
  }

  protected evalItems(
    items: readonly TermIR[],
    i: number,
    acc: Value[],
    f: Frame,
    sc: Scope,
    k: (vs: Value[]) => boolean,
  ): boolean {
    if (i === items.length) return k(acc.slice());
    return this.evalTerm(items[i]!, f, sc, (v) => {
      acc[i] = v;
      return this.evalItems(items, i + 1, acc, f, sc, k);
    });
  }

  /** Value of a term that needs no evaluation (head terms after rewriting). */
  plug(t: TermIR, f: Frame): Value {
    switch (t.k) {
      case 'c':
        return t.v;
      case 'v': {
        const v = f[t.s];
        if (v === undefined) throw new Error(`internal error: var ${t.n} is unbound`);
        return v;
      }
      case 'arr': {
        const out: Value[] = new Array(t.items.length);
        for (let i = 0; i < t.items.length; i++) out[i] = this.plug(t.items[i]!, f);
        return out;
      }
      case 'set':
        return RSet.from(t.items.map((x) => this.plug(x, f)));
      case 'obj':
        return RObject.from(t.items.map(([a, b]) => [this.plug(a, f), this.plug(b, f)] as [Value, Value]));
      default:
        throw new Error(`internal error: cannot plug ${t.k} term`);
    }
  }

  /** First value of any term, or undefined. */
  plugOpt(t: TermIR, f: Frame, sc: Scope): Value | undefined {
    let out: Value | undefined;
    this.evalTerm(t, f, sc, (v) => {
      out = v;
      return true;
    });
    return out;
  }

  /** Navigates `path[i..]` below value v, enumerating where the path has unbound vars. */
  nav(v: Value, path: readonly TermIR[], i: number, f: Frame, sc: Scope, k: KV): boolean {
    if (i === path.length) return k(v);
    const p = path[i]!;
    if (p.k === 'v' && i === path.length - 1 && f[p.s] === undefined) return this.navLast(v, p.s, f, k);
    return this.navStep(v, path, i, f, sc, k);
  }

  /** nav's step through path[i] with a continuation (not a var as the last key: navLast). */
  protected navStep(v: Value, path: readonly TermIR[], i: number, f: Frame, sc: Scope, k: KV): boolean {
    const p = path[i]!;
    if (this.isPattern(p, f)) {
      if (!(Array.isArray(v) || v instanceof RObject || v instanceof RSet)) return false;
      return iterate(v, (key, child) => {
        this.sh.step();
        return this.match(p, key, f, sc, () => this.nav(child, path, i + 1, f, sc, k));
      });
    }
    return this.evalTerm(p, f, sc, (key) => {
      const c = lookup(v, key);
      return c === undefined ? false : this.nav(c, path, i + 1, f, sc, k);
    });
  }

  /**
   * `v[x]` with x an unbound var, as the last step of a ref (`some x in coll` lowers to this): what
   * nav does through iterate and match, without a closure per element.
   */
  protected navLast(v: Value, s: number, f: Frame, k: KV): boolean {
    try {
      if (Array.isArray(v)) {
        for (let j = 0; j < v.length; j++) {
          this.sh.step();
          f[s] = j;
          if (k(v[j]!)) return true;
        }
      } else if (v instanceof RObject) {
        for (const [key, child] of v.entries()) {
          this.sh.step();
          f[s] = key;
          if (k(child)) return true;
        }
      } else if (v instanceof RSet) {
        for (const x of v.valuesView()) {
          this.sh.step();
          f[s] = x;
          if (k(x)) return true;
        }
      }
      return false;
    } finally {
      f[s] = undefined;
    }
  }
}
