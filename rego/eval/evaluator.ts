/**
 * Top-down evaluation of a plan, in continuation-passing style: every step calls its continuation
 * once per solution, and a continuation returns true to stop the enumeration early. This layer
 * evaluates bodies and expressions (calls, with, every, negation, logic operators); terms and
 * documents are in terms.ts and documents.ts.
 */
import { RegoEvalError, type Location } from '../errors.js';
import { RObject, RSet, type Value } from '../value.js';
import { upsert } from './docs.js';
import { DirectEvaluator } from './direct.js';
import type { BodyIR, CallIR, ExprIR, IterIR, LogicIR, NodeIR, WithIR } from './ir.js';
import { iterate } from './iterate.js';
import { DocCache, NOT_DIRECT, type FnPatch, type Scope } from './scope.js';
import { callSpecial } from './special.js';
import type { Frame, K, KV } from './terms.js';

export type { Frame, K, KV } from './terms.js';

export class Evaluator extends DirectEvaluator {
  evalBody(body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean {
    for (;;) {
      // one step per partial solution: bounds enumeration as well as expression count
      this.sh.step();
      if (i === body.length) return k();
      const e = body[i]!;
      // Deterministic expressions (checks, calls and assignments whose operands have one value)
      // run in this loop; only enumerating ones need a continuation. See evalDirect.
      const r = e.with === undefined ? this.evalDirect(e, f, sc) : NOT_DIRECT;
      if (r === NOT_DIRECT) return this.evalGeneralThen(e, body, i, f, sc, k);
      if (r === false) return false;
      if (r !== true) {
        // r is the slot to bind: the rest of the body runs with it bound, then it is unbound.
        try {
          return this.evalBody(body, i + 1, f, sc, k);
        } finally {
          f[r] = undefined;
        }
      }
      i++;
    }
  }

  /** body[i] (an expression evalDirect cannot run), then the rest of the body; body[i]'s step is taken. */
  evalGeneralThen(e: ExprIR, body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean {
    const it = e.op === 'unify' ? e.iter : undefined;
    if (
      it !== undefined &&
      e.with === undefined &&
      f[it.out] === undefined &&
      f[it.key] === undefined &&
      this.single(it.coll, f)
    ) {
      return this.iterateThen(it, body, i, f, sc, k);
    }
    return this.evalExprThen(e, body, i, f, sc, k);
  }

  /**
   * body[i] = `out = coll[key]` with both vars unbound and one collection, then the rest of the body: the
   * unification's solutions (same order, same steps as nav's last step) without a continuation per element.
   */
  protected iterateThen(it: IterIR, body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean {
    const coll = this.evalOne(it.coll, f, sc);
    const s = it.key;
    const o = it.out;
    try {
      if (Array.isArray(coll)) {
        for (let j = 0; j < coll.length; j++) {
          this.sh.step();
          f[s] = j;
          f[o] = coll[j];
          if (this.evalBody(body, i + 1, f, sc, k)) return true;
        }
      } else if (coll instanceof RObject) {
        for (const [key, child] of coll.entries()) {
          this.sh.step();
          f[s] = key;
          f[o] = child;
          if (this.evalBody(body, i + 1, f, sc, k)) return true;
        }
      } else if (coll instanceof RSet) {
        for (const x of coll.valuesView()) {
          this.sh.step();
          f[s] = x;
          f[o] = x;
          if (this.evalBody(body, i + 1, f, sc, k)) return true;
        }
      }
      return false;
    } finally {
      f[s] = undefined;
      f[o] = undefined;
    }
  }

  /**
   * body[i] on the general path, then the rest of the body. NB: a method of its own because a closure
   * anywhere in a method makes V8 allocate the method's context on every call, taken or not.
   */
  protected evalExprThen(e: ExprIR, body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean {
    return this.evalExpr(e, f, sc, () => this.evalBody(body, i + 1, f, sc, k));
  }

  evalExpr(e: ExprIR, f: Frame, sc: Scope, k: K): boolean {
    if (e.with !== undefined) {
      const inner = this.applyWith(e.with, f, sc);
      if (inner === undefined) return false;
      if (e.neg) return this.evalPositive(e, f, inner, () => true) ? false : k();
      return this.evalPositive(e, f, inner, k);
    }
    if (e.neg) return this.evalPositive(e, f, sc, () => true) ? false : k();
    return this.evalPositive(e, f, sc, k);
  }

  protected evalPositive(e: ExprIR, f: Frame, sc: Scope, k: K): boolean {
    switch (e.op) {
      case 'term':
        return this.evalTerm(e.t, f, sc, (v) => (v === false ? false : k()));
      case 'unify':
        return this.unify(e.a, e.b, f, sc, k);
      case 'call':
        return this.evalCall(e.call, e.loc, f, sc, k);
      case 'every':
        return this.evalEvery(e, f, sc, k);
      case 'logic':
        return this.evalLogic(e.node, f, sc) ? k() : false;
    }
  }

  /** Experimental logic operators: short-circuit, each operand succeeds at most once, nothing is bound. */
  protected evalLogic(n: LogicIR, f: Frame, sc: Scope): boolean {
    switch (n.kind) {
      case 'body':
        return this.evalBody(n.body, 0, f, sc, () => true);
      case 'not':
        return !this.evalLogic(n.operand, f, sc);
      case 'and':
        return this.evalLogic(n.left, f, sc) && this.evalLogic(n.right, f, sc);
      case 'or':
        return this.evalLogic(n.left, f, sc) || this.evalLogic(n.right, f, sc);
    }
  }

  protected evalEvery(e: Extract<ExprIR, { op: 'every' }>, f: Frame, sc: Scope, k: K): boolean {
    return this.evalTerm(e.domain, f, sc, (dom) => {
      if (!(Array.isArray(dom) || dom instanceof RObject || dom instanceof RSet)) return false;
      let ok = true;
      iterate(dom, (key, val) => {
        const found = this.match(e.value, val, f, sc, () =>
          e.key
            ? this.match(e.key, key, f, sc, () => this.evalBody(e.body, 0, f, sc, () => true))
            : this.evalBody(e.body, 0, f, sc, () => true),
        );
        if (!found) ok = false;
        return !ok;
      });
      return ok ? k() : false;
    });
  }

  protected applyWith(ws: readonly WithIR[], f: Frame, sc: Scope): Scope | undefined {
    let input = sc.input;
    let data = sc.data;
    let overridden: Set<NodeIR> | undefined;
    let fnPatches: Map<string, FnPatch> | undefined;
    for (const w of ws) {
      let v: Value | undefined;
      if (w.kind !== 'fn' || w.fnValue === undefined) {
        v = this.plugOpt(w.value, f, sc);
        if (v === undefined) return undefined;
      }
      switch (w.kind) {
        case 'input':
          input = w.path.length === 0 ? v! : upsert(input, w.path, v!);
          break;
        case 'data': {
          data = upsert(data, w.path, v!);
          overridden ??= new Set(sc.overridden ?? []);
          let n: NodeIR | undefined = this.root;
          for (const p of w.path) {
            n = n.children.get(p);
            if (n === undefined) break;
          }
          if (n) overridden.add(n);
          break;
        }
        case 'fn': {
          fnPatches ??= new Map(sc.fnPatches ?? []);
          if (w.fnValue) {
            fnPatches.set(w.fnName, {
              name: w.fnValue.name,
              ...(w.fnValue.builtin ? { builtin: w.fnValue.builtin } : {}),
              ...(w.fnValue.fn ? { fn: w.fnValue.fn } : {}),
            });
          } else fnPatches.set(w.fnName, { name: w.fnName, value: v! });
          break;
        }
      }
    }
    return {
      input,
      data,
      overridden: overridden ?? sc.overridden,
      fnPatches: fnPatches ?? sc.fnPatches,
      cache: new DocCache(),
      fnCache: undefined,
      inProgress: [],
    };
  }

  evalCall(c: CallIR, loc: Location, f: Frame, sc: Scope, k: K): boolean {
    // Fast path: every argument has exactly one value (the common case).
    let allSingle = true;
    for (const a of c.args) {
      if (!this.single(a, f)) {
        allSingle = false;
        break;
      }
    }
    if (allSingle) {
      const args: Value[] = new Array(c.args.length);
      for (let i = 0; i < c.args.length; i++) {
        const v = this.evalOne(c.args[i]!, f, sc);
        if (v === undefined) return false;
        args[i] = v;
      }
      return this.invoke(c.name, c.builtin, c.fn, args, loc, sc, (r) => this.afterCall(c, r, f, sc, k));
    }
    return this.evalItems(c.args, 0, [], f, sc, (args) =>
      this.invoke(c.name, c.builtin, c.fn, args, loc, sc, (r) => this.afterCall(c, r, f, sc, k)),
    );
  }

  /** A call's result: bound to its output term, or (without one) a condition that fails on false. */
  protected afterCall(c: CallIR, r: Value, f: Frame, sc: Scope, k: K): boolean {
    if (c.out !== undefined) return this.match(c.out, r, f, sc, k);
    return r === false ? false : k();
  }

  invoke(
    name: string,
    builtin: CallIR['builtin'],
    fn: NodeIR | undefined,
    args: Value[],
    loc: Location,
    sc: Scope,
    k: KV,
  ): boolean {
    const patch = sc.fnPatches?.get(name);
    if (patch !== undefined) {
      if (patch.value !== undefined) return k(patch.value);
      // NB: a replacement runs without function mocks, so a mock may call the original and
      // never calls another mock (OPA's semantics).
      return this.invokeTarget(patch.name, patch.builtin, patch.fn, args, loc, this.unmocked(sc), k);
    }
    return this.invokeTarget(name, builtin, fn, args, loc, sc, k);
  }

  protected unmocked(sc: Scope): Scope {
    return { ...sc, fnPatches: undefined, cache: new DocCache(), fnCache: undefined, inProgress: [] };
  }

  protected invokeTarget(
    name: string,
    builtin: CallIR['builtin'],
    fn: NodeIR | undefined,
    args: Value[],
    loc: Location,
    sc: Scope,
    k: KV,
  ): boolean {
    if (fn !== undefined) return this.callFunction(fn, args, sc, k);
    if (builtin === undefined) throw new RegoEvalError('eval_type_error', `undefined function ${name}`, loc);
    const special = callSpecial(this, name, args, loc, sc, k);
    if (special !== undefined) return special;
    const r = this.callBuiltin(name, builtin, args, loc);
    return r === undefined ? false : k(r);
  }
}
