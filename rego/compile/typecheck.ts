/**
 * Compile-time type checking (OPA's typeChecker): each body is walked in evaluation order (after
 * the safety reordering), vars get the types of what they are bound to, and every call is checked
 * against its declaration (builtins) or inferred type (user functions). A call whose argument
 * cannot have the declared type is a `rego_type_error` (`count: invalid argument(s)`), as is an
 * equality whose sides cannot unify (`match error`). What is not known (input, data without
 * schema) is `any`, so the checker only reports what no input could make right.
 */
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import type { Expr, Rule, Term } from '../syntax/ast.js';
import { logicBodies } from '../syntax/ast.js';
import { headName, termText } from '../syntax/format.js';
import { callName } from '../syntax/walk.js';
import { T, unionOf, type Type } from '../types.js';
import type { LowerEnv } from './lower.js';
import { hasNil, keysOf, selectIndex, selectKey, showType, unifies, valuesOf, type MaybeType } from './typeops.js';
import { Scope, TermTyper, constKey, type DocTypes, type FnType } from './typeterms.js';

export type { DocTypes, FnType } from './typeterms.js';

export class TypeChecker extends TermTyper {
  readonly errors: Diagnostic[] = [];
  /** refs already reported as undefined (a ref is typed more than once) */
  private readonly badRefs = new WeakSet<Term>();

  constructor(
    private readonly env: LowerEnv,
    private readonly src: (l: Location) => string | undefined,
    docs?: DocTypes,
    /** generated var name → the user's name, for messages */
    private readonly names: ReadonlyMap<string, string> = new Map(),
  ) {
    super(docs);
  }

  checkRule(rule: Rule): void {
    for (let r: Rule | undefined = rule; r; r = r.else) this.ruleBody(r);
  }

  /** Checks a definition's body with the rule's type of `input`; returns the scope it leaves. */
  private ruleBody(r: Rule): Scope {
    this.input = this.docs?.inputType(r) ?? T.any;
    const scope = new Scope();
    this.body(r.body, scope);
    return scope;
  }

  /**
   * What one definition placed at its own node contributes: the element of a multi-value rule,
   * else the value. Undefined when unknown or when the definition has type errors.
   */
  headType(r: Rule, multi: boolean): MaybeType {
    const scope = this.ruleBody(r);
    const t = multi ? r.head.key : r.head.value;
    return t && this.errors.length === 0 ? this.typeOf(t, scope) : undefined;
  }

  /** A function definition's type: its arguments as its body uses them (`any` if unused), its value. */
  funcType(r: Rule): FnType | undefined {
    const scope = this.ruleBody(r);
    if (this.errors.length > 0 || !r.head.value) return undefined;
    for (const a of r.head.args ?? []) if (this.typeOf(a, scope) === undefined) this.unify1(a, T.any, scope, false);
    const args = (r.head.args ?? []).map((a) => this.typeOf(a, scope) ?? T.any);
    return { args, result: this.typeOf(r.head.value, scope) ?? T.any };
  }

  body(body: readonly Expr[], scope: Scope): void {
    for (const e of body) this.expr(e, scope);
  }

  private expr(e: Expr, scope: Scope): void {
    const t = e.terms;
    if (Array.isArray(t)) {
      const name = callName(t);
      if (name === 'eq' && t.length === 3) this.checkEq(e, t[1]!, t[2]!, scope);
      else this.checkCall(e, name, t.slice(1), scope);
      return;
    }
    switch (t.type) {
      case 'some':
        return;
      case 'every': {
        const domain = this.typeOf(t.domain, scope) ?? T.any;
        const inner = scope.child();
        if (t.key) this.unify1(t.key, keysOf(domain) ?? T.any, inner, false);
        this.unify1(t.value, valuesOf(domain) ?? T.any, inner, false);
        this.body(t.body, inner);
        return;
      }
      case 'logic':
        for (const b of logicBodies(t.node)) this.body(b, scope.child());
        return;
      default:
        this.typeOf(t as Term, scope);
    }
  }

  private checkEq(e: Expr, a: Term, b: Term, scope: Scope): void {
    const ta = this.typeOf(a, scope);
    const tb = this.typeOf(b, scope);
    if (this.unify2(a, ta, b, tb, scope)) return;
    this.report('match error', e.loc, [`left  : ${showType(ta)}`, `right : ${showType(tb)}`]);
  }

  private unify2(a: Term, ta: MaybeType, b: Term, tb: MaybeType, scope: Scope): boolean {
    const nilA = hasNil(ta);
    const nilB = hasNil(tb);
    if (nilA && !nilB) return this.unify1(a, tb, scope, false);
    if (nilB && !nilA) return this.unify1(b, ta, scope, false);
    if (!nilA && !nilB) return unifies(ta, tb);
    // both sides unknown: arrays of equal length pair up; a var takes the other side's type
    if (a.type === 'array' && b.type === 'array') {
      if (a.items.length !== b.items.length) return false;
      return a.items.every((x, i) =>
        this.unify2(x, this.typeOf(x, scope), b.items[i]!, this.typeOf(b.items[i]!, scope), scope),
      );
    }
    if (a.type === 'var' || b.type === 'var') {
      const [v, other] = a.type === 'var' ? [a, b] : [b, a];
      return this.unify1(other, T.any, scope, false) && this.unify1(v, this.typeOf(other, scope), scope, false);
    }
    return true;
  }

  private checkCall(e: Expr, name: string, operands: Term[], scope: Scope): void {
    const before = this.errors.length;
    const fn = this.signature(name);
    if (!fn) {
      for (const o of operands) if (this.typeOf(o, scope) === undefined) this.unify1(o, T.any, scope, false);
      return;
    }
    const want = [...fn.args, ...(fn.result ? [fn.result] : [])];
    for (let i = 0; i < operands.length; i++) {
      const w = want[i] ?? fn.variadic;
      if (w !== undefined && !this.unify1(operands[i]!, w, scope, false)) {
        const types = operands.map((o) => this.typeOf(o, scope));
        // OPA drops an argument error caused by an unknown type when a ref in the call was already reported
        if (this.errors.length > before && types.some((t) => t === undefined)) return;
        const have = types.map(showType);
        const wants = want.map(showType);
        if (fn.variadic) wants.push(`${showType(fn.variadic)}...`);
        this.report(`${name}: invalid argument(s)`, e.loc, [
          `have: (${have.join(', ')})`,
          `want: (${wants.join(', ')})`,
        ]);
        return;
      }
    }
  }

  /** A builtin's declaration or a user function's inferred type; undefined when not checked. */
  private signature(name: string): { args: readonly Type[]; result?: Type; variadic?: Type } | undefined {
    if (name.startsWith('data.')) return this.docs?.fnType(name);
    const b = this.env.builtin(name);
    if (!b) return undefined;
    return b.decl.variadic ? { args: b.decl.args, variadic: b.decl.variadic } : b.decl;
  }

  protected undefinedRef(
    ref: Extract<Term, { type: 'ref' }>,
    pos: number,
    have: Type,
    kind: 'invalid' | 'unsupported',
  ): void {
    if (this.badRefs.has(ref)) return;
    this.badRefs.add(ref);
    const text = (n: number): string => refText(ref.terms.slice(0, n), this.names);
    const full = text(ref.terms.length);
    const loc = ref.terms[0]!.loc;
    if (kind === 'unsupported') {
      this.report(`undefined ref: ${full}`, loc, [full, '^'.repeat(text(pos).length), `have: ${showType(have)}`]);
      return;
    }
    const pad = ' '.repeat(text(pos).length + 1);
    const keys = have.kind === 'object' ? have.static.map(([k]) => JSON.stringify(k)) : [];
    const want = keys.length > 0 ? `want (one of): [${keys.join(' ')}]` : `want (type): ${showType(keysOf(have))}`;
    this.report(`undefined ref: ${full}`, loc, [
      full,
      `${pad}^`,
      `${pad}have: ${termText(ref.terms[pos]!)}`,
      `${pad}${want}`,
    ]);
  }

  private report(message: string, loc: Location, details: string[]): void {
    this.errors.push(diagnostic('rego_type_error', message, loc, this.src(loc), details));
  }

  /** OPA's unify1: can `t` have type `tpe`? Unbound vars take the type (`union`: add it). */
  unify1(t: Term, tpe: MaybeType, scope: Scope, union: boolean): boolean {
    switch (t.type) {
      case 'var': {
        const exist = scope.get(t.name);
        if (union) scope.set(t.name, exist && tpe ? unionOf([exist, tpe]) : (tpe ?? exist));
        else if (exist !== undefined) return unifies(exist, tpe);
        else scope.set(t.name, tpe);
        return true;
      }
      case 'array':
        if (tpe?.kind === 'array') {
          if (t.items.length !== tpe.static.length && tpe.dynamic === undefined) return false;
          return t.items.every((x, i) => this.unify1(x, selectIndex(tpe, i), scope, union));
        }
        return this.unify1Any(t, tpe, t.items, scope);
      case 'set':
        if (tpe?.kind === 'set') return t.items.every((x) => this.unify1(x, tpe.of, scope, union));
        return this.unify1Any(t, tpe, t.items, scope);
      case 'object':
        if (tpe?.kind === 'object') {
          if (t.items.length !== tpe.static.length && tpe.dynamic === undefined) return false;
          return t.items.every(([k, v]) => {
            const key = constKey(k);
            if (key === undefined) return this.unify1(v, T.any, scope, union) || true;
            const child = selectKey(tpe, key);
            return child !== undefined && this.unify1(v, child, scope, union);
          });
        }
        return this.unify1Any(
          t,
          tpe,
          t.items.map(([, v]) => v),
          scope,
        );
      default: {
        const own = this.typeOf(t, scope);
        // NB: a ref into something not typed is OPA's "undefined ref", which is not reported here.
        return own === undefined || unifies(own, tpe);
      }
    }
  }

  private unify1Any(t: Term, tpe: MaybeType, items: Term[], scope: Scope): boolean {
    if (tpe?.kind !== 'any') return false;
    if (tpe.of.length === 0) {
      for (const x of items) this.unify1(x, T.any, scope, true);
      return true;
    }
    let ok = false;
    for (const m of tpe.of) ok = this.unify1(t, m, scope, true) || ok;
    return ok;
  }
}

/** A ref as OPA prints it, with the user's var names. */
function refText(terms: readonly Term[], names: ReadonlyMap<string, string>): string {
  const rename = (t: Term): Term => (t.type === 'var' && names.has(t.name) ? { ...t, name: names.get(t.name)! } : t);
  return headName(terms.map(rename));
}

/** Checks every rule of the modules; returns OPA's `rego_type_error`s in source order. */
export function checkTypes(
  rules: Iterable<Rule>,
  env: LowerEnv,
  src: (l: Location) => string | undefined,
  docs?: DocTypes,
  names?: ReadonlyMap<string, string>,
): Diagnostic[] {
  const tc = new TypeChecker(env, src, docs, names);
  for (const r of rules) tc.checkRule(r);
  return tc.errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.row - b.row || a.col - b.col));
}
