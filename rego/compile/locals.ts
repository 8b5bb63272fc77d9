/**
 * Local variable rewriting (OPA's RewriteLocalVars): every var declared with `:=`, `some` or as an
 * `every` key/value gets a unique generated name, so that shadowing in nested scopes is explicit;
 * `:=` becomes unification; `some x in xs` becomes `x = xs[_]`. Declaring a var that is already
 * used or declared in the same scope is an error, as in OPA.
 */
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import { mapLogic, type Expr, type Rule, type Term } from '../syntax/ast.js';
import { termTypeName } from '../syntax/parser.js';
import { termVars } from '../syntax/walk.js';
import { mapClosures, renameExpr, renameVars } from './rename.js';

export { renameExpr, renameVars };

export class VarGen {
  private next = 0;
  constructor(private readonly exclude: Set<string> = new Set()) {}
  gen(): string {
    for (;;) {
      const v = `__local${this.next++}__`;
      if (!this.exclude.has(v)) return v;
    }
  }
}

/** Scopes of declared vars: name → generated name; a name mapped to itself was only seen (used). */
export class DeclStack {
  readonly frames: Map<string, string>[] = [new Map()];
  /** every generated name → the user's name (for query result bindings) */
  readonly rewritten = new Map<string, string>();
  push(): void {
    this.frames.push(new Map());
  }
  pop(): Map<string, string> {
    return this.frames.pop()!;
  }
  declared(v: string): string | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const g = this.frames[i]!.get(v);
      if (g !== undefined) return g;
    }
    return undefined;
  }
  top(): Map<string, string> {
    return this.frames[this.frames.length - 1]!;
  }
}

export class LocalRewriter {
  readonly errors: Diagnostic[] = [];
  /** generated name → user's name, across everything rewritten */
  readonly names = new Map<string, string>();
  constructor(
    private readonly gen: VarGen,
    private readonly source: (loc: Location) => string | undefined,
  ) {}

  private err(msg: string, loc: Location): void {
    this.errors.push(diagnostic('rego_compile_error', msg, loc, this.source(loc)));
  }

  private declare(stack: DeclStack, v: string, loc: Location): string {
    const top = stack.top();
    const seen = top.get(v);
    if (seen !== undefined) {
      this.err(seen === v ? `var ${v} referenced above` : `var ${v} assigned above`, loc);
      return seen;
    }
    const g = this.gen.gen();
    top.set(v, g);
    stack.rewritten.set(g, v);
    return g;
  }

  /** Rewrites a rule (and its else chain). Head vars bound in the body follow their renaming. */
  rewriteRule(rule: Rule): DeclStack {
    const stack = new DeclStack();
    for (let r: Rule | undefined = rule; r; r = r.else) {
      const s = r === rule ? stack : new DeclStack();
      const h = r.head;
      // comprehensions in the head get their own scopes first
      if (h.value) h.value = this.rewriteNestedHead(h.value, s);
      if (h.key) h.key = this.rewriteNestedHead(h.key, s);
      r.body = this.rewriteBody(r.body, s);
      const top = s.frames[0]!;
      const xform = (t: Term): Term => renameVars(t, (v) => (top.get(v) !== v ? top.get(v) : undefined));
      if (h.args) h.args = h.args.map(xform);
      h.ref = h.ref.map((t, i) => (i === 0 ? t : xform(t)));
      if (h.key) h.key = xform(h.key);
      if (h.value) h.value = xform(h.value);
      for (const [g, v] of s.rewritten) stack.rewritten.set(g, v);
    }
    for (const [g, v] of stack.rewritten) this.names.set(g, v);
    return stack;
  }

  private rewriteNestedHead(t: Term, stack: DeclStack): Term {
    return mapClosures(t, (c) => this.rewriteTerm(c, stack));
  }

  rewriteBody(body: Expr[], stack: DeclStack): Expr[] {
    const out: Expr[] = [];
    for (const e of body) {
      const r = this.rewriteExpr(e, stack);
      if (r) out.push(r);
    }
    return out;
  }

  private rewriteExpr(e: Expr, stack: DeclStack): Expr | undefined {
    const t = e.terms;
    const withs = e.with.map((w) => ({ ...w, value: this.rewriteTerm(w.value, stack) }));
    if (Array.isArray(t)) {
      const op = t[0]!;
      const isAssign =
        op.type === 'ref' && op.terms.length === 1 && op.terms[0]!.type === 'var' && op.terms[0]!.name === 'assign';
      if (isAssign && t.length === 3) {
        if (e.negated) {
          this.err('cannot assign vars inside negated expression', e.loc);
          return e;
        }
        const rhs = this.rewriteTerm(t[2]!, stack);
        const before = this.errors.length;
        const lhs = this.declareTarget(t[1]!, stack);
        if (this.errors.length !== before) return { ...e, terms: [op, lhs, rhs], with: withs };
        const eqOp: Term = { ...op, terms: [{ type: 'var', name: 'eq', loc: op.loc }] };
        return { ...e, terms: [eqOp, lhs, rhs], with: withs, assigned: true };
      }
      return { ...e, terms: t.map((x) => this.rewriteTerm(x, stack)), with: withs };
    }
    if (t.type === 'some') {
      const s0 = t.symbols[0];
      if (s0?.type === 'call') {
        // `some x in xs` → `x = xs[$k]`; `some k, v in xs` → `v = xs[k]`
        const args = s0.args;
        const container = this.rewriteTerm(args[args.length - 1]!, stack);
        const key = args.length === 3 ? args[0]! : ({ type: 'var', name: this.gen.gen(), loc: s0.loc } as Term);
        const val = args.length === 3 ? args[1]! : args[0]!;
        const declaredNames = new Set<string>();
        termVars(key, { skipClosures: true }, declaredNames);
        termVars(val, { skipClosures: true }, declaredNames);
        const containerVars = termVars(container);
        const mapping = new Map<string, string>();
        for (const v of [...declaredNames].sort()) {
          if (containerVars.has(v)) continue;
          mapping.set(v, this.declare(stack, v, t.loc));
        }
        const ren = (x: Term): Term => renameVars(x, (v) => mapping.get(v) ?? stack.declared(v));
        const rhs: Term =
          container.type === 'ref'
            ? { ...container, terms: [...container.terms, ren(key)] }
            : { type: 'ref', terms: [container, ren(key)], loc: container.loc };
        const eqOp: Term = { type: 'ref', loc: t.loc, terms: [{ type: 'var', name: 'eq', loc: t.loc }] };
        return { ...e, terms: [eqOp, ren(val), rhs], with: withs };
      }
      for (const s of t.symbols) if (s.type === 'var') this.declare(stack, s.name, s.loc);
      return undefined; // plain `some x` only declares
    }
    if (t.type === 'every') {
      const domain = this.rewriteTerm(t.domain, stack);
      stack.push();
      const key = t.key ? this.declareTarget(t.key, stack) : undefined;
      const value = this.declareTarget(t.value, stack);
      const body = this.rewriteBody(t.body, stack);
      stack.pop();
      return { ...e, terms: { ...t, domain, body, value, ...(key ? { key } : {}) }, with: withs };
    }
    if (t.type === 'logic') {
      const node = mapLogic(t.node, (b) => {
        stack.push();
        const r = this.rewriteBody(b, stack);
        stack.pop();
        return r;
      });
      return { ...e, terms: { ...t, node }, with: withs };
    }
    return { ...e, terms: this.rewriteTerm(t, stack), with: withs };
  }

  /** LHS of `:=`: vars (also inside arrays and object values) are declared. */
  private declareTarget(t: Term, stack: DeclStack): Term {
    switch (t.type) {
      case 'var':
        return { ...t, name: this.declare(stack, t.name, t.loc) };
      case 'array':
        return { ...t, items: t.items.map((x) => this.declareTarget(x, stack)) };
      case 'object':
        return { ...t, items: t.items.map(([k, v]) => [k, this.declareTarget(v, stack)] as [Term, Term]) };
      case 'ref':
        if (t.terms.length === 1 && t.terms[0]!.type === 'var') {
          return { type: 'var', name: this.declare(stack, t.terms[0]!.name, t.loc), loc: t.loc };
        }
        this.err('cannot assign to ref', t.loc);
        return t;
      case 'scalar':
        // constants on the left are matched by unification, as OPA allows in patterns
        return t;
      default:
        this.err(`cannot assign to ${termTypeName(t)}`, t.loc);
        return t;
    }
  }

  rewriteTerm(t: Term, stack: DeclStack): Term {
    switch (t.type) {
      case 'var': {
        const g = stack.declared(t.name);
        if (g !== undefined) return g === t.name ? t : { ...t, name: g };
        stack.top().set(t.name, t.name);
        return t;
      }
      case 'ref': {
        const [h, ...rest] = t.terms;
        if (h?.type === 'var' && (h.name === 'data' || h.name === 'input')) {
          const g = stack.declared(h.name);
          const head = g !== undefined && g !== h.name ? { ...h, name: g } : h;
          return { ...t, terms: [head, ...rest.map((x) => this.rewriteTerm(x, stack))] };
        }
        return { ...t, terms: t.terms.map((x) => this.rewriteTerm(x, stack)) };
      }
      case 'array':
        return { ...t, items: t.items.map((x) => this.rewriteTerm(x, stack)) };
      case 'set':
        return { ...t, items: t.items.map((x) => this.rewriteTerm(x, stack)) };
      case 'object':
        return {
          ...t,
          items: t.items.map(([k, v]) => [this.rewriteTerm(k, stack), this.rewriteTerm(v, stack)] as [Term, Term]),
        };
      case 'call':
        return { ...t, fn: t.fn, args: t.args.map((x) => this.rewriteTerm(x, stack)) };
      case 'arraycompr':
      case 'setcompr': {
        stack.push();
        const body = this.rewriteBody(t.body, stack);
        const head = this.rewriteTerm(t.head, stack);
        stack.pop();
        return { ...t, head, body };
      }
      case 'objectcompr': {
        stack.push();
        const body = this.rewriteBody(t.body, stack);
        const key = this.rewriteTerm(t.key, stack);
        const value = this.rewriteTerm(t.value, stack);
        stack.pop();
        return { ...t, key, value, body };
      }
      case 'template':
        return {
          ...t,
          parts: t.parts.map((p) => {
            if (typeof p === 'string') return p;
            stack.push();
            const r = this.rewriteExpr(p, stack) ?? p;
            stack.pop();
            return r;
          }),
        };
      default:
        return t;
    }
  }
}
