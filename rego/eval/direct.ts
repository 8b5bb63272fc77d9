/**
 * Continuation-free evaluation of deterministic expressions. Most expressions of a rule body are
 * checks, calls and assignments whose operands have exactly one value; the evaluator's body loop
 * runs those here, without allocating a continuation per expression, and hands the rest (anything
 * that enumerates or matches a pattern) to the general continuation-passing path.
 */
import type { Builtin, CallSite } from '../builtins/registry.js';
import { checkResult, shallowUnits } from '../builtins/limits.js';
import { BuiltinError, OperandError, RegoError, RegoEvalError, type Location } from '../errors.js';
import { equal, type Value } from '../value.js';
import { WalkEvaluator } from './walk.js';
import type { ExprIR, TermIR } from './ir.js';
import { LARGE_CHARGE, NOT_DIRECT, type Scope } from './scope.js';
import type { Frame } from './terms.js';

export abstract class DirectEvaluator extends WalkEvaluator {
  /**
   * Evaluates an expression that has at most one solution without a continuation: true/false for a
   * check, the slot of a var it has bound, or NOT_DIRECT when the expression needs the general path
   * (an operand to enumerate, a pattern to match, a mocked function, `walk`, `every`, …). It does
   * exactly what evalExpr would, in the same order, so results, errors and steps are the same.
   */
  protected evalDirect(e: ExprIR, f: Frame, sc: Scope): boolean | number | typeof NOT_DIRECT {
    let out: TermIR | undefined;
    let v: Value | undefined;
    switch (e.op) {
      case 'call': {
        const c = e.call;
        out = c.out;
        if (out !== undefined && (e.neg || out.k !== 'v')) return NOT_DIRECT;
        if (sc.fnPatches !== undefined || (c.fn === undefined && (c.builtin === undefined || c.name === 'walk')))
          return NOT_DIRECT;
        // NB: every argument is checked before any is evaluated: evaluating one (a comprehension
        // with print, say) and then falling back to the general path would evaluate it twice.
        for (let j = 0; j < c.args.length; j++) {
          const t = c.args[j]!;
          if (t.k === 'c' || (t.k === 'v' ? f[t.s] !== undefined : this.single(t, f))) continue;
          return NOT_DIRECT;
        }
        const args: Value[] = new Array(c.args.length);
        for (let j = 0; j < c.args.length; j++) {
          const t = c.args[j]!;
          const a = t.k === 'c' ? t.v : t.k === 'v' ? f[t.s] : this.evalOne(t, f, sc);
          if (a === undefined) return e.neg;
          args[j] = a;
        }
        v =
          c.fn !== undefined
            ? this.functionValue(c.fn, args, sc)
            : this.callBuiltin(c.name, c.builtin!, args, e.loc, c);
        if (out === undefined) return e.neg === (v === undefined || v === false);
        break;
      }
      case 'term':
        if (!this.single(e.t, f)) return NOT_DIRECT;
        v = this.evalOne(e.t, f, sc);
        return e.neg === (v === undefined || v === false);
      case 'unify': {
        const ap = this.isPattern(e.a, f);
        const bp = this.isPattern(e.b, f);
        if (!ap && !bp) {
          if (!this.single(e.a, f) || !this.single(e.b, f)) return NOT_DIRECT;
          const va = this.evalOne(e.a, f, sc);
          const vb = va === undefined ? undefined : this.evalOne(e.b, f, sc);
          return e.neg === (vb === undefined || !equal(va!, vb));
        }
        if (e.neg || ap === bp) return NOT_DIRECT;
        out = ap ? e.a : e.b;
        const src = ap ? e.b : e.a;
        if (out.k !== 'v' || !this.single(src, f)) return NOT_DIRECT;
        v = this.evalOne(src, f, sc);
        break;
      }
      default:
        return NOT_DIRECT;
    }
    // out is a var: bind it, or compare with its value
    if (v === undefined) return false;
    const s = (out as Extract<TermIR, { k: 'v' }>).s;
    const cur = f[s];
    if (cur !== undefined) return equal(cur, v);
    f[s] = v;
    return s;
  }

  /**
   * A builtin's result; an error makes it undefined, or (strict mode) becomes a typed eval error.
   * Builtins of linear cost are charged their arguments' size before the call and their result's
   * after it; every result is checked against the size limits (builtins/limits.ts); a call that
   * charged a lot is followed by a deadline check, so a long call never ends in a late success.
   */
  protected callBuiltin(
    name: string,
    builtin: Builtin,
    args: Value[],
    loc: Location,
    site?: CallSite,
  ): Value | undefined {
    const sh = this.sh;
    const before = sh.steps;
    let r: Value | undefined;
    try {
      if (builtin.linear === true) for (let i = 0; i < args.length; i++) sh.charge(shallowUnits(args[i]!));
      r = builtin.impl(args, sh.bctx, site);
    } catch (e) {
      if (e instanceof RegoError) throw e;
      if (!sh.strict) return undefined;
      if (e instanceof OperandError)
        throw new RegoEvalError('eval_type_error', `${name}: ${e.message}`, loc, { cause: e });
      const msg = e instanceof BuiltinError ? e.message : e instanceof Error ? e.message : String(e);
      throw new RegoEvalError('eval_builtin_error', `${name}: ${msg}`, loc, { cause: e });
    }
    if (r !== undefined) {
      checkResult(r);
      if (builtin.linear === true) sh.charge(shallowUnits(r));
    }
    if (sh.steps - before >= LARGE_CHARGE) sh.checkDeadline();
    return r;
  }
}
