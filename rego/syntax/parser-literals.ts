/**
 * Body-level grammar: queries and literals — expressions, `not`, `some`, `every`, `with`, and
 * OPA's experimental logic operators (`and`, `or`, block `not`).
 */
import type { Location } from '../errors.js';
import type { Every, Expr, LogicNode, RefTerm, SomeDecl, Term, With } from './ast.js';
import type { Tok } from './tokens.js';
import { MEMBER_2, MEMBER_3, TermParser } from './parser-terms.js';

export abstract class LiteralParser extends TermParser {
  /** `import future.keywords.not` seen: `not {…}` / `not (…)` blocks are allowed */
  protected notBlocks = false;

  protected parseBody(end: Tok): Expr[] | undefined {
    if (!this.enter()) return undefined;
    try {
      return this.parseQuery(false, end);
    } finally {
      this.leave();
    }
  }

  parseQuery(requireSemi: boolean, end: Tok): Expr[] | undefined {
    const body: Expr[] = [];
    if (this.t() === end) {
      this.addError('found empty body', this.loc());
      return undefined;
    }
    for (;;) {
      const e = this.parseLiteral();
      if (e === undefined) return undefined;
      body.push(e);
      if (this.t() === ';') {
        this.scan();
        continue;
      }
      if (this.t() === end || requireSemi) return body;
      if (!this.s.skippedNL) {
        if (this.s.errors.length === 0) this.illegal(`expected \\n or ; or ${end === 'EOF' ? 'eof' : end}`);
        return undefined;
      }
    }
  }

  protected parseLiteral(): Expr | undefined {
    const loc = this.loc();
    if (this.notBlocks || this.sc.keywords.has('and') || this.sc.keywords.has('or')) {
      const e = this.parseLogicLiteral(loc);
      if (e !== undefined) return e;
    }
    return this.parsePlainLiteral(loc);
  }

  /**
   * `a and b`, `a or b`, `not {…}`, `(… or …)`: returns undefined (with the state restored) when
   * the literal uses none of them, so that plain literals parse exactly as before.
   */
  private parseLogicLiteral(loc: Location): Expr | undefined {
    const st = this.save();
    const node = this.parseLogicOr(loc);
    if (node === undefined || isPlain(node)) {
      this.restore(st);
      return undefined;
    }
    const e: Expr = { loc, negated: false, with: [], terms: { type: 'logic', node: toLogic(node), loc } };
    if (this.t() === 'with') {
      const w = this.parseWith();
      if (w === undefined) return undefined;
      e.with = w;
    }
    return e;
  }

  private parseLogicOr(loc: Location): ParsedLogic | undefined {
    let left = this.parseLogicAnd(loc);
    while (left !== undefined && this.t() === 'or') {
      this.scan();
      const right = this.parseLogicAnd(this.loc());
      if (right === undefined) return undefined;
      left = { kind: 'or', left, right };
    }
    return left;
  }

  private parseLogicAnd(loc: Location): ParsedLogic | undefined {
    let left = this.parseLogicUnary(loc);
    while (left !== undefined && this.t() === 'and') {
      this.scan();
      const right = this.parseLogicUnary(this.loc());
      if (right === undefined) return undefined;
      left = { kind: 'and', left, right };
    }
    return left;
  }

  private parseLogicUnary(loc: Location): ParsedLogic | undefined {
    if (!this.enter()) return undefined;
    try {
      if (this.t() === 'not') {
        const st = this.save();
        this.scanWS();
        const next = this.t();
        this.restore(st);
        if (next !== '.' && next !== '[') {
          this.scan();
          const operand = this.parseLogicUnary(this.loc());
          return operand && { kind: 'not', operand };
        }
      }
      return this.parseLogicPrimary(loc);
    } finally {
      this.leave();
    }
  }

  private parseLogicPrimary(loc: Location): ParsedLogic | undefined {
    if (this.t() === '{') {
      const st = this.save();
      this.scan();
      const body = this.t() === '}' ? undefined : this.parseBody('}');
      if (body !== undefined && this.t() === '}') {
        this.scan();
        return { kind: 'block', body };
      }
      this.restore(st);
    } else if (this.t() === '(') {
      const st = this.save();
      this.scan();
      const innerLoc = this.loc();
      const inner = this.parseLogicOr(innerLoc);
      if (inner !== undefined && !isPlain(inner) && this.t() === ')') {
        this.scan();
        return inner;
      }
      // `(a with …)` / `(a or b with …)`: the modifiers bind to the whole group
      if (inner !== undefined && this.t() === 'with') {
        const w = this.parseWith();
        if (w !== undefined && this.t() === ')') {
          this.scan();
          const e: Expr =
            inner.kind === 'lit'
              ? { ...inner.expr, with: w }
              : {
                  loc: innerLoc,
                  negated: false,
                  with: w,
                  terms: { type: 'logic', node: toLogic(inner), loc: innerLoc },
                };
          return { kind: 'block', body: [e] };
        }
      }
      this.restore(st);
    }
    const e = this.parseExpr(loc);
    return e && { kind: 'lit', expr: e };
  }

  private parsePlainLiteral(loc: Location): Expr | undefined {
    if (this.isRefKeyword(this.t())) {
      const st = this.save();
      this.scanWS();
      const next = this.t();
      this.restore(st);
      if (next === '.' || next === '[') {
        this.s.tok = 'IDENT';
        return this.parseLiteralExpr(false, loc);
      }
    }
    let negated = false;
    if (this.t() === 'not') {
      const st = this.save();
      this.scanWS();
      const next = this.t();
      this.restore(st);
      if (next !== '.' && next !== '[') {
        this.scan();
        negated = true;
      }
    }
    switch (this.t()) {
      case 'some':
        if (negated) {
          this.illegal("illegal negation of 'some'");
          return undefined;
        }
        return this.parseSome(loc);
      case 'every':
        if (negated) {
          this.illegal("illegal negation of 'every'");
          return undefined;
        }
        return this.parseEvery(loc);
      default:
        return this.parseLiteralExpr(negated, loc);
    }
  }

  private parseLiteralExpr(negated: boolean, loc: Location): Expr | undefined {
    const e = this.parseExpr(loc);
    if (e === undefined) return undefined;
    e.negated = negated;
    if (this.t() === 'with') {
      const w = this.parseWith();
      if (w === undefined) return undefined;
      e.with = w;
    }
    return e;
  }

  private parseExpr(loc: Location): Expr | undefined {
    const lhs = this.parseTermInfixCall();
    if (lhs === undefined) return undefined;
    if (this.t() === ':=' || this.t() === '=') {
      const opLoc = this.loc();
      const name = this.t() === ':=' ? 'assign' : 'eq';
      this.scan();
      const rhs = this.parseTermInfixCall();
      if (rhs === undefined) return undefined;
      return { loc, negated: false, with: [], terms: [opTerm(name, opLoc), lhs, rhs] };
    }
    if (lhs.type === 'call') return { loc, negated: false, with: [], terms: [lhs.fn, ...lhs.args] };
    return { loc, negated: false, with: [], terms: lhs };
  }

  private parseWith(): With[] | undefined {
    const out: With[] = [];
    for (;;) {
      const loc = this.loc();
      this.scan();
      if (this.t() !== 'IDENT') {
        this.illegal('expected ident');
        return undefined;
      }
      const target = this.parseTerm();
      if (target === undefined) return undefined;
      if (target.type !== 'ref' && target.type !== 'var') this.illegal('expected with target path');
      if (this.t() !== 'as') {
        this.illegal('expected as keyword');
        return undefined;
      }
      this.scan();
      const value = this.parseTermInfixCall();
      if (value === undefined) return undefined;
      out.push({ target, value, loc });
      if (this.t() !== 'with') return out;
    }
  }

  private parseSome(loc: Location): Expr | undefined {
    const st = this.save();
    this.scan();
    const term = this.parseTermInfixCall();
    if (term !== undefined && term.type === 'call') {
      const fn = term.fn.terms
        .map((t) => (t.type === 'var' ? t.name : String((t as { value: unknown }).value)))
        .join('.');
      if (fn === MEMBER_2 || fn === MEMBER_3) {
        const decl: SomeDecl = { type: 'some', symbols: [term], loc };
        const e: Expr = { loc, negated: false, with: [], terms: decl };
        if (this.t() === 'with') {
          const w = this.parseWith();
          if (w === undefined) return undefined;
          e.with = w;
        }
        return e;
      }
      this.illegal('expected `x in xs` or `x, y in xs` expression');
      return undefined;
    }
    this.restore(st);
    const symbols: Term[] = [];
    for (;;) {
      this.scan();
      if (this.t() !== 'IDENT') {
        this.illegal('expected var');
        return undefined;
      }
      symbols.push(this.parseVar());
      this.scan();
      if (this.t() !== ',') break;
    }
    return { loc, negated: false, with: [], terms: { type: 'some', symbols, loc } };
  }

  private parseEvery(loc: Location): Expr | undefined {
    this.scan();
    const term = this.parseTermInfixCall();
    if (term === undefined) return undefined;
    if (term.type !== 'call') {
      this.illegal('expected `x[, y] in xs { ... }` expression');
      return undefined;
    }
    const fn = term.fn.terms
      .map((t) => (t.type === 'var' ? t.name : String((t as { value: unknown }).value)))
      .join('.');
    const ev: Every = { type: 'every', value: term.args[0]!, domain: term.args[0]!, body: [], loc };
    if (fn === MEMBER_2) {
      ev.value = term.args[0]!;
      ev.domain = term.args[1]!;
    } else if (fn === MEMBER_3) {
      ev.key = term.args[0]!;
      ev.value = term.args[1]!;
      ev.domain = term.args[2]!;
      if (ev.key.type !== 'var') {
        this.illegal('expected key to be a variable');
        return undefined;
      }
    } else {
      this.illegal('expected `x[, y] in xs { ... }` expression');
      return undefined;
    }
    if (ev.value.type !== 'var') {
      this.illegal('expected value to be a variable');
      return undefined;
    }
    if (this.t() !== '{') {
      this.illegal('missing body');
      return undefined;
    }
    this.scan();
    const body = this.parseBody('}');
    if (body === undefined) return undefined;
    this.scan();
    ev.body = body;
    const e: Expr = { loc, negated: false, with: [], terms: ev };
    if (this.t() === 'with') {
      const w = this.parseWith();
      if (w === undefined) return undefined;
      e.with = w;
    }
    return e;
  }
}

/** Logic as parsed: plain literals are kept apart so a literal without logic parses as before. */
type ParsedLogic =
  | { kind: 'and' | 'or'; left: ParsedLogic; right: ParsedLogic }
  | { kind: 'not'; operand: ParsedLogic }
  | { kind: 'block'; body: Expr[] }
  | { kind: 'lit'; expr: Expr };

function isPlain(n: ParsedLogic): boolean {
  return n.kind === 'lit' || (n.kind === 'not' && isPlain(n.operand));
}

function toLogic(n: ParsedLogic): LogicNode {
  switch (n.kind) {
    case 'lit':
      return { kind: 'body', body: [n.expr] };
    case 'block':
      return { kind: 'body', body: n.body };
    case 'not':
      return { kind: 'not', operand: toLogic(n.operand) };
    default:
      return { kind: n.kind, left: toLogic(n.left), right: toLogic(n.right) };
  }
}

function opTerm(name: string, loc: Location): RefTerm {
  return { type: 'ref', loc, terms: [{ type: 'var', name, loc }] };
}

export function isTermExpr(e: Expr): boolean {
  return !Array.isArray(e.terms) && e.terms.type !== 'some' && e.terms.type !== 'every';
}
