/**
 * Scalars: vars (with `_` wildcards), numbers (exact beyond 2^53), strings, raw strings and
 * template strings (`$"…{expr}…"`, whose embedded expressions are full literals).
 */
import { normNum, numberValue, type Value } from '../value.js';
import type { Expr, ScalarTerm, Term } from './ast.js';
import { ParserBase } from './parser-base.js';

export abstract class ScalarParser extends ParserBase {
  protected abstract parseLiteral(): Expr | undefined;

  protected genWildcard(): string {
    return `$${this.s.wildcard++}`;
  }

  protected parseVar(): Term {
    const loc = this.loc();
    if (this.s.lit === '_') return { type: 'var', name: this.genWildcard(), loc };
    return { type: 'var', name: this.s.lit, loc };
  }

  protected parseNumber(): Term | undefined {
    const loc = this.loc();
    let prefix = '';
    if (this.t() === '-') {
      prefix = '-';
      this.scan();
      if (this.t() !== 'NUMBER' && this.t() !== '.') {
        this.illegal('expected number');
        return undefined;
      }
    }
    if (this.t() === '.') {
      prefix += '.';
      this.scan();
      if (this.t() !== 'NUMBER') {
        this.illegal('expected number');
        return undefined;
      }
    }
    const lit = this.s.lit;
    if (!prefix.endsWith('.') && lit.length > 1 && lit[0] === '0') {
      const ok = lit[1] === '.' || (lit.length > 2 && (lit[1] === 'e' || lit[1] === 'E'));
      if (!ok) {
        this.illegal('expected number without leading zero');
        return undefined;
      }
    }
    const text = (prefix === '-.' ? '-0.' : prefix === '.' ? '0.' : prefix) + lit;
    const value = numberFromText(text);
    if (value === undefined) {
      this.addError('number too big', this.loc());
      return undefined;
    }
    return { type: 'scalar', value, text: prefix + lit, loc };
  }

  protected parseString(): Term | undefined {
    const loc = this.loc();
    const lit = this.s.lit;
    if (lit[0] === '"') {
      const inner = lit.slice(1, -1);
      if (!inner.includes('\\')) return { type: 'scalar', value: inner, loc };
      try {
        return { type: 'scalar', value: JSON.parse(lit) as string, loc };
      } catch {
        this.addError(`illegal string literal: ${lit}`, loc);
        return undefined;
      }
    }
    if (lit.length < 2) return undefined;
    return { type: 'scalar', value: lit.slice(1, -1), loc };
  }

  protected parseTemplate(raw: boolean): Term | undefined {
    const loc = this.loc();
    const parts: (string | Expr)[] = [];
    for (;;) {
      const lit = this.s.lit;
      let piece = lit.slice(1, -1);
      if (!raw) {
        const stripped = piece.replace(/\\\{/g, '{');
        if (stripped.includes('\\')) {
          try {
            piece = JSON.parse(`"${stripped}"`) as string;
          } catch {
            this.addError(`illegal template-string part: ${lit}`, this.loc());
            return undefined;
          }
        } else piece = stripped;
      } else piece = piece.replace(/\\\{/g, '{');
      if (piece.length > 0) parts.push(piece);
      if (this.t() === 'TPL_END' || this.t() === 'RAW_TPL_END') break;
      this.scan();
      const expr = this.parseLiteral();
      if (expr === undefined) {
        this.addError('invalid template-string expression', this.loc());
        return undefined;
      }
      const bad = templateExprProblem(expr);
      if (bad !== undefined) {
        this.addError(bad, expr.loc);
        return undefined;
      }
      parts.push(expr);
      if (this.t() !== '}') {
        this.addError('expected } to end template string expression', this.loc());
        return undefined;
      }
      this.doScan(false, raw ? 'raw' : 'quoted');
    }
    return { type: 'template', parts, loc };
  }
}

export function scalarName(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'number';
}

function templateExprProblem(e: Expr): string | undefined {
  if (e.negated) return "unexpected negation ('not') in template-string expression";
  if (Array.isArray(e.terms)) {
    const op = e.terms[0];
    const name = op?.type === 'ref' && op.terms.length === 1 && op.terms[0]!.type === 'var' ? op.terms[0]!.name : '';
    if (name === 'eq') return "unexpected unification ('=') in template-string expression";
    if (name === 'assign') return "unexpected assignment (':=') in template-string expression";
  } else if (e.terms.type === 'every') return "unexpected 'every' in template-string expression";
  else if (e.terms.type === 'some') return "unexpected 'some' in template-string expression";
  return undefined;
}

/**
 * Converts a number literal to a value: exact bigint for large integers, double otherwise.
 * `undefined` for numbers OPA rejects as too big.
 */
/**
 * A scalar's value; a number literal keeps its text where it is not the number's own (`1.0`, `1e3`),
 * as OPA's json.Number does. NB: `.5` is kept as `0.5`: OPA keeps `.5`, which its JSON encoder rejects.
 */
export function scalarValue(t: ScalarTerm): Value {
  const v = t.value;
  if (t.text === undefined || (typeof v !== 'number' && typeof v !== 'bigint')) return v;
  return numberValue(t.text.replace(/^(-?)\./, '$10.'), v);
}

export function numberFromText(text: string): number | bigint | undefined {
  if (/^-?\d+$/.test(text)) {
    if (text.replace('-', '').length > 1000) return undefined;
    return text.length > 15 ? normNum(BigInt(text)) : Number(text);
  }
  const m = /^(-?)(\d*)\.?(\d*)[eE]?([+-]?\d*)$/.exec(text);
  const exp = m && m[4] ? Number(m[4]) : 0;
  if (Math.abs(exp) > 30000) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) {
    // Huge but finite for big.Float: keep as exact bigint when integral.
    if (m && exp >= 0) {
      const digits = m[2]! + m[3]!;
      const shift = exp - m[3]!.length;
      if (shift >= 0) return normNum(BigInt(m[1]! + digits + '0'.repeat(shift)));
    }
    return undefined;
  }
  if (Number.isInteger(n) && !Number.isSafeInteger(n) && m) {
    // Integral literal beyond 2^53 written with exponent/fraction: keep it exact.
    const digits = m[2]! + m[3]!;
    const shift = exp - m[3]!.length;
    if (shift >= 0) return normNum(BigInt(m[1]! + digits + '0'.repeat(shift)));
  }
  return normNum(n);
}
