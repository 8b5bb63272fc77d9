/**
 * to_number: strings are read with Go's strconv.ParseFloat syntax (hex floats, digit separators),
 * and keep the exact value of their text, as OPA keeps the text itself.
 */
import { BuiltinError, operandError } from '../../errors.js';
import { NumLit, numberValue, quoteGo, type Value } from '../../value.js';
import * as A from '../args.js';
import * as F from '../../lib/bigfloat/index.js';

type Num = number | bigint;

const DEC_FLOAT = /^[+-]?(?:\d[\d_]*(?:\.[\d_]*)?|\.[\d_]+)(?:[eE][+-]?\d[\d_]*)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([\da-fA-F_]*)(?:\.([\da-fA-F_]*))?[pP]([+-]?\d[\d_]*)$/;

/** Go's underscoreOK: underscores only between digits (a base prefix counts as a digit). */
function underscoresOK(s: string): boolean {
  let t = s.replace(/^[+-]/, '');
  let saw = '^';
  let hex = false;
  if (/^0[xXbBoO]/.test(t)) {
    hex = /^0[xX]/.test(t);
    t = t.slice(2);
    saw = '0';
  }
  for (const c of t) {
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** The exact value of a string strconv.ParseFloat accepts, or undefined for a syntax error. */
export function parseGoFloat(s: string): Num | 'range' | undefined {
  if (s.includes('_') && !underscoresOK(s)) return undefined;
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) {
    const int = (hex[2] ?? '').replace(/_/g, '');
    const frac = (hex[3] ?? '').replace(/_/g, '');
    if (int === '' && frac === '') return undefined;
    const mant = BigInt(`0x${int + frac || '0'}`);
    const exp = Number(hex[4]!.replace(/_/g, '')) - 4 * frac.length;
    const v = mant === 0n ? 0 : F.toValue({ neg: hex[1] === '-', mant, exp }, Math.max(F.PREC53, F.bitLength(mant)));
    return typeof v === 'number' && !Number.isFinite(v) ? 'range' : v;
  }
  if (!DEC_FLOAT.test(s)) return undefined;
  const clean = s.replace(/_/g, '');
  if (!Number.isFinite(Number(clean))) return 'range';
  return F.decimalToValue(clean);
}

export function toNumberImpl(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  if (v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof NumLit) return v;
  if (typeof v !== 'string') throw operandError(1, ['null', 'boolean', 'number', 'string'], v);
  const lower = v.replace(/^[+-]+/, '').toLowerCase();
  if (lower === 'inf' || lower === 'infinity' || lower === 'nan') {
    throw operandError(1, 'valid number string', v);
  }
  const r = parseGoFloat(v);
  if (r === undefined) throw new BuiltinError(`strconv.ParseFloat: parsing ${quoteGo(v)}: invalid syntax`);
  if (r === 'range') throw new BuiltinError(`strconv.ParseFloat: parsing ${quoteGo(v)}: value out of range`);
  // OPA returns json.Number(v): the string's own text, printed as it is (`to_number("1.0")` is 1.0).
  // NB: only JSON's number syntax keeps it; Go-only forms (`+1`, `0x1p4`, `1_000`) would print invalid JSON.
  return JSON_NUMBER.test(v) ? numberValue(v, r) : r;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
