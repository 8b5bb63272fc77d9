/**
 * Term-level grammar: operators by precedence (in < relations < | < & < +,- < *,/,%), refs,
 * calls. Collections: parser-collections.ts; scalars and template strings: parser-scalars.ts.
 */
import type { Location } from '../errors.js';
import type { RefTerm, Term } from './ast.js';
import type { Tok } from './tokens.js';
import { CollectionParser } from './parser-collections.js';
import { scalarName } from './parser-scalars.js';

/** Infix operator tokens and the builtin each stands for. */
export const INFIX_BUILTIN: Partial<Record<Tok, string>> = {
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
  '|': 'or',
  '&': 'and',
  '+': 'plus',
  '-': 'minus',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
  '=': 'eq',
  ':=': 'assign',
};

export const MEMBER_2 = 'internal.member_2';
export const MEMBER_3 = 'internal.member_3';

const ROOT_DOCS = new Set(['data', 'input']);

export function opRef(name: string, loc: Location): RefTerm {
  const parts = name.split('.');
  return {
    type: 'ref',
    loc,
    terms: parts.map((p, i) => (i === 0 ? { type: 'var', name: p, loc } : { type: 'scalar', value: p, loc })),
  };
}

export abstract class TermParser extends CollectionParser {
  protected call(fn: string, loc: Location, args: Term[]): Term {
    return { type: 'call', fn: opRef(fn, loc), args, loc };
  }

  /** Consumes an operator token if it is one of `ops`; returns the builtin name. */
  protected parseOp(ops: readonly Tok[]): { name: string; loc: Location } | undefined {
    if (!ops.includes(this.t())) return undefined;
    const loc = this.loc();
    const name = this.t() === 'in' ? MEMBER_2 : INFIX_BUILTIN[this.t()]!;
    this.scan();
    return { name, loc };
  }

  parseTermInfixCall(): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      return this.parseTermIn(undefined, true);
    } finally {
      this.leave();
    }
  }

  protected parseTermInfixCallInList(): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      return this.parseTermIn(undefined, false);
    } finally {
      this.leave();
    }
  }

  private parseTermIn(lhs0: Term | undefined, keyVal: boolean): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      const lhs = lhs0 ?? this.parseTermRelation(undefined);
      if (lhs === undefined) return undefined;
      if (keyVal && this.t() === ',') {
        const st = this.save();
        this.scan();
        const mhs = this.parseTermRelation(undefined);
        if (mhs !== undefined && this.t() === 'in') {
          this.scan();
          const rhs = this.parseTermRelation(undefined);
          if (rhs !== undefined) {
            const c = this.call(MEMBER_3, lhs.loc, [lhs, mhs, rhs]);
            return this.t() === 'in' ? this.parseTermIn(c, keyVal) : c;
          }
        }
        this.restore(st);
      }
      this.scanAheadRef();
      if (this.t() === 'in') {
        this.scan();
        const rhs = this.parseTermRelation(undefined);
        if (rhs !== undefined) {
          const c = this.call(MEMBER_2, lhs.loc, [lhs, rhs]);
          return this.t() === 'in' ? this.parseTermIn(c, keyVal) : c;
        }
        return undefined;
      }
      return lhs;
    } finally {
      this.leave();
    }
  }

  private binary(lhs0: Term | undefined, ops: readonly Tok[], next: () => Term | undefined): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      let lhs = lhs0 ?? next();
      if (lhs === undefined) return undefined;
      for (;;) {
        const op = this.parseOp(ops);
        if (op === undefined) return lhs;
        const rhs = next();
        if (rhs === undefined) return undefined;
        lhs = { type: 'call', fn: opRef(op.name, op.loc), args: [lhs, rhs], loc: lhs.loc };
      }
    } finally {
      this.leave();
    }
  }

  private parseTermRelation(lhs: Term | undefined): Term | undefined {
    return this.binary(lhs, ['==', '!=', '<', '>', '<=', '>='], () => this.parseTermOr());
  }

  private parseTermOr(): Term | undefined {
    return this.binary(undefined, ['|'], () => this.parseTermAnd());
  }

  private parseTermAnd(): Term | undefined {
    return this.binary(undefined, ['&'], () => this.parseTermArith());
  }

  private parseTermArith(): Term | undefined {
    return this.binary(undefined, ['+', '-'], () => this.parseTermFactor());
  }

  private parseTermFactor(): Term | undefined {
    return this.binary(undefined, ['*', '/', '%'], () => this.parseTerm());
  }

  parseTerm(): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      const cached = this.termCache.get(this.s.offset);
      if (cached !== undefined && cached.post.errors.length === this.s.errors.length) {
        this.restore(cached.post);
        return cached.term as Term;
      }
      const start = this.s.offset;
      let term: Term | undefined;
      const loc = this.loc();
      switch (this.t()) {
        case 'null':
          term = { type: 'scalar', value: null, loc };
          break;
        case 'true':
          term = { type: 'scalar', value: true, loc };
          break;
        case 'false':
          term = { type: 'scalar', value: false, loc };
          break;
        case '-':
        case '.':
        case 'NUMBER':
          term = this.parseNumber();
          break;
        case 'STRING':
          term = this.parseString();
          break;
        case 'TPL_PART':
        case 'TPL_END':
          term = this.parseTemplate(false);
          break;
        case 'RAW_TPL_PART':
        case 'RAW_TPL_END':
          term = this.parseTemplate(true);
          break;
        case 'IDENT':
        case 'contains':
          term = this.parseVar();
          break;
        case '[':
          term = this.parseArray();
          break;
        case '{':
          term = this.parseSetOrObject();
          break;
        case '(': {
          this.scan();
          const r = this.parseTermInfixCall();
          if (r !== undefined) {
            if (this.t() === ')') term = r;
            else this.addError('non-terminated expression', this.loc());
          }
          break;
        }
        default:
          this.illegal();
      }
      const out = this.parseTermFinish(term);
      if (out !== undefined) this.termCache.set(start, { term: out, post: this.save() });
      return out;
    } finally {
      this.leave();
    }
  }

  protected parseTermFinish(head: Term | undefined): Term | undefined {
    if (head === undefined) return undefined;
    this.scanWS();
    switch (this.t()) {
      case '(':
      case '.':
      case '[':
        return this.parseRef(head);
      default:
        if (this.t() === 'WS') this.scan();
        if (head.type === 'var' && ROOT_DOCS.has(head.name)) return { type: 'ref', terms: [head], loc: head.loc };
        return head;
    }
  }

  protected parseRef(head: Term): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      const loc = head.loc;
      switch (head.type) {
        case 'var':
        case 'array':
        case 'object':
        case 'set':
        case 'arraycompr':
        case 'setcompr':
        case 'objectcompr':
        case 'call':
          break;
        default:
          this.addError(
            `illegal ref (head cannot be ${head.type === 'scalar' ? scalarName(head.value) : head.type})`,
            loc,
          );
      }
      const terms: Term[] = [head];
      for (;;) {
        switch (this.t()) {
          case '.': {
            this.scanWS();
            if (this.t() !== 'IDENT' && !this.isRefKeyword(this.t())) {
              this.illegal('expected ident');
              return undefined;
            }
            terms.push({ type: 'scalar', value: this.s.lit, loc: this.loc() });
            this.scanWS();
            break;
          }
          case '(': {
            const fn: RefTerm = { type: 'ref', terms: [...terms], loc };
            let term = this.parseCall(fn);
            if (term === undefined) return undefined;
            if (this.t() === 'WS') {
              this.scan();
              return term;
            }
            if (this.t() === '.' || this.t() === '[') term = this.parseRef(term);
            return term;
          }
          case '[': {
            this.scan();
            const t = this.parseTermInfixCall();
            if (t === undefined) return undefined;
            if (this.t() !== ']') {
              this.illegal('expected [');
              return undefined;
            }
            terms.push(t);
            this.scanWS();
            break;
          }
          case 'WS':
            this.scan();
            return { type: 'ref', terms, loc };
          default:
            return { type: 'ref', terms, loc };
        }
      }
    } finally {
      this.leave();
    }
  }

  private parseCall(fn: RefTerm): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      this.scan(); // over '('
      if (this.t() === ')') {
        this.scanWS();
        if (fn.terms.length === 1 && fn.terms[0]!.type === 'var' && fn.terms[0]!.name === 'set') {
          return { type: 'set', items: [], loc: fn.loc };
        }
        return { type: 'call', fn, args: [], loc: fn.loc };
      }
      const args = this.parseTermList(')', []);
      if (args === undefined) return undefined;
      this.scanWS();
      return { type: 'call', fn, args, loc: fn.loc };
    } finally {
      this.leave();
    }
  }
}
