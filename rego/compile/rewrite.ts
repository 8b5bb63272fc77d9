/**
 * Term rewriting (OPA's RewriteExprTerms, RewriteComprehensionTerms, RewriteRefsInHead,
 * RewriteWithValues, template strings, print): nested calls become separate expressions bound to
 * generated vars placed before the expression (so they are evaluated outside a `not`, under the
 * same `with`), and heads keep only plain terms.
 */
import type { Location } from '../errors.js';
import { mapLogic, type Expr, type Rule, type Term } from '../syntax/ast.js';
import { opRef } from '../syntax/parser-terms.js';
import type { VarGen } from './locals.js';

export const TEMPLATE_BUILTIN = 'internal.template_string';
export const PRINT_BUILTIN = 'internal.print';

function v(name: string, loc: Location): Term {
  return { type: 'var', name, loc };
}

function eqExpr(lhs: Term, rhs: Term, loc: Location, withs: Expr['with'] = []): Expr {
  return { loc, negated: false, with: withs, generated: true, terms: [opRef('eq', loc), lhs, rhs] };
}

function requiresEval(t: Term): boolean {
  switch (t.type) {
    case 'ref':
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
    case 'call':
    case 'template':
      return true;
    case 'array':
    case 'set':
      return t.items.some(requiresEval);
    case 'object':
      return t.items.some(([k, x]) => requiresEval(k) || requiresEval(x));
    default:
      return false;
  }
}

export class TermRewriter {
  constructor(
    private readonly gen: VarGen,
    /** `with f as g` where g names a function: g stays a reference, it is not evaluated */
    private readonly isFunctionValue: (t: Term) => boolean = () => false,
  ) {}

  rewriteRule(rule: Rule): void {
    for (let r: Rule | undefined = rule; r; r = r.else) {
      const h = r.head;
      const extras: Expr[] = [];
      r.body = this.body(r.body);
      const lift = (t: Term): Term => {
        const [ex, out] = this.term(t);
        extras.push(...ex);
        if (requiresEval(out)) {
          const nv = v(this.gen.gen(), out.loc);
          extras.push(eqExpr(nv, out, out.loc));
          return nv;
        }
        return out;
      };
      h.ref = h.ref.map((t, i) => (i === 0 ? t : lift(t)));
      // function args that need evaluation (e.g. template strings) are matched against a fresh var
      if (h.args) h.args = h.args.map((a) => (requiresEval(a) ? lift(a) : a));
      if (h.key) h.key = lift(h.key);
      if (h.value) h.value = lift(h.value);
      if (extras.length > 0) {
        // NB: a generated `true` body is replaced, so that the rule stays a plain assignment.
        if (r.generatedBody) r.body = [];
        r.body.push(...extras);
      }
    }
  }

  body(body: Expr[]): Expr[] {
    const out: Expr[] = [];
    for (const e of body) out.push(...this.expr(e));
    return out;
  }

  expr(e: Expr): Expr[] {
    const out: Expr[] = [];
    // with values are evaluated before (and outside) the with scope
    const withs = e.with.map((w) => {
      if (this.isFunctionValue(w.value)) return w;
      const [ex, val] = this.term(w.value);
      out.push(...ex);
      if (requiresEval(val)) {
        const nv = v(this.gen.gen(), val.loc);
        out.push(eqExpr(nv, val, val.loc));
        return { ...w, value: nv };
      }
      return { ...w, value: val };
    });
    const withExtras = (xs: Expr[]): Expr[] => (withs.length > 0 ? xs.map((x) => ({ ...x, with: withs })) : xs);
    const t = e.terms;
    if (Array.isArray(t)) {
      const op = t[0]!;
      const opName = op.type === 'ref' && op.terms.length === 1 && op.terms[0]!.type === 'var' ? op.terms[0]!.name : '';
      if (opName === 'print') {
        const [ex, call] = this.printCall(t, e.loc);
        out.push(...withExtras(ex));
        out.push({ ...e, terms: call, with: withs });
        return out;
      }
      const args: Term[] = [op];
      for (let i = 1; i < t.length; i++) {
        const [ex, a] = this.term(t[i]!);
        out.push(...withExtras(ex));
        args.push(a);
      }
      out.push({ ...e, terms: args, with: withs });
      return out;
    }
    if (t.type === 'every') {
      const [ex, domain] = this.term(t.domain);
      out.push(...withExtras(ex));
      out.push({ ...e, terms: { ...t, domain, body: this.body(t.body) }, with: withs });
      return out;
    }
    if (t.type === 'some') {
      out.push({ ...e, with: withs });
      return out;
    }
    if (t.type === 'logic') {
      out.push({ ...e, terms: { ...t, node: mapLogic(t.node, (b) => this.body(b)) }, with: withs });
      return out;
    }
    const [ex, term] = this.term(t);
    out.push(...withExtras(ex));
    out.push({ ...e, terms: term, with: withs });
    return out;
  }

  /** `print(a, b)` → `internal.print([{x | x = a}, {y | y = b}])`: undefined operands print `<undefined>`. */
  private printCall(t: Term[], loc: Location): [Expr[], Term[]] {
    const parts = t.slice(1).map((a) => {
      const nv = v(this.gen.gen(), a.loc);
      return this.closure(nv, [eqExpr(nv, a, a.loc)], a.loc);
    });
    return [[], [opRef(PRINT_BUILTIN, loc), { type: 'array', items: parts, loc }]];
  }

  private closure(head: Term, body: Expr[], loc: Location): Term {
    return { type: 'setcompr', head, body: this.body(body), loc };
  }

  /** Returns the support expressions and the rewritten term. */
  term(t: Term): [Expr[], Term] {
    switch (t.type) {
      case 'call': {
        const support: Expr[] = [];
        const args = t.args.map((a) => {
          const [ex, x] = this.term(a);
          support.push(...ex);
          return x;
        });
        const out = v(this.gen.gen(), t.loc);
        support.push({ loc: t.loc, negated: false, with: [], generated: true, terms: [t.fn, ...args, out] });
        return [support, out];
      }
      case 'ref': {
        const support: Expr[] = [];
        const terms = t.terms.map((a) => {
          const [ex, x] = this.term(a);
          support.push(...ex);
          return x;
        });
        return [support, { ...t, terms }];
      }
      case 'array':
      case 'set': {
        const support: Expr[] = [];
        const items = t.items.map((a) => {
          const [ex, x] = this.term(a);
          support.push(...ex);
          return x;
        });
        return [support, { ...t, items }];
      }
      case 'object': {
        const support: Expr[] = [];
        const items = t.items.map(([k, x]): [Term, Term] => {
          const [ek, kk] = this.term(k);
          const [ev, vv] = this.term(x);
          support.push(...ek, ...ev);
          return [kk, vv];
        });
        return [support, { ...t, items }];
      }
      case 'arraycompr':
      case 'setcompr': {
        const body = this.body(t.body);
        const [ex, head] = this.term(t.head);
        body.push(...ex);
        let h = head;
        if (requiresEval(h)) {
          const nv = v(this.gen.gen(), h.loc);
          body.push(eqExpr(nv, h, h.loc));
          h = nv;
        }
        return [[], { ...t, head: h, body }];
      }
      case 'objectcompr': {
        const body = this.body(t.body);
        const [ek, key] = this.term(t.key);
        body.push(...ek);
        const [ev, value] = this.term(t.value);
        body.push(...ev);
        let k = key;
        let x = value;
        if (requiresEval(k)) {
          const nv = v(this.gen.gen(), k.loc);
          body.push(eqExpr(nv, k, k.loc));
          k = nv;
        }
        if (requiresEval(x)) {
          const nv = v(this.gen.gen(), x.loc);
          body.push(eqExpr(nv, x, x.loc));
          x = nv;
        }
        return [[], { ...t, key: k, value: x, body }];
      }
      case 'template': {
        const items: Term[] = t.parts.map((p) => {
          if (typeof p === 'string') return { type: 'scalar', value: p, loc: t.loc };
          const terms = p.terms;
          let term: Term;
          if (Array.isArray(terms))
            term = { type: 'call', fn: terms[0] as Extract<Term, { type: 'ref' }>, args: terms.slice(1), loc: p.loc };
          else term = terms as Term;
          if (term.type === 'scalar' && p.with.length === 0) return term;
          const nv = v(this.gen.gen(), p.loc);
          return this.closure(nv, [eqExpr(nv, term, p.loc, p.with)], p.loc);
        });
        return this.term({
          type: 'call',
          fn: opRef(TEMPLATE_BUILTIN, t.loc),
          args: [{ type: 'array', items, loc: t.loc }],
          loc: t.loc,
        });
      }
      default:
        return [[], t];
    }
  }
}
