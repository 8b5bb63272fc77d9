/**
 * Argument helpers for builtin implementations: each returns the operand with its TS type or throws
 * OPA's operand error (positions are 1-based in messages, indices 0-based here).
 */
import { operandElementError, operandError, operandErrorText } from '../errors.js';
import { RObject, RSet, type Value } from '../value.js';

function at(args: readonly Value[], i: number): Value {
  const v = args[i];
  // NB: the evaluator checks arity before calling, so a hole here is a bug in a family, not user input.
  if (v === undefined) throw new Error(`builtin argument ${i + 1} missing`);
  return v;
}

export function str(args: readonly Value[], i: number): string {
  const v = at(args, i);
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

export function num(args: readonly Value[], i: number): number | bigint {
  const v = at(args, i);
  if (typeof v !== 'number' && typeof v !== 'bigint') throw operandError(i + 1, 'number', v);
  return v;
}

/** An integer within ±(2^53−1); OPA's IntOperand. */
export function int(args: readonly Value[], i: number): number {
  const v = at(args, i);
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
    return v;
  }
  if (typeof v === 'bigint') throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
  throw operandError(i + 1, 'number', v);
}

/** Any integer, exactly; OPA's BigIntOperand. */
export function bigint(args: readonly Value[], i: number): bigint {
  const v = at(args, i);
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
    return BigInt(v);
  }
  throw operandError(i + 1, 'integer', v);
}

export function bool(args: readonly Value[], i: number): boolean {
  const v = at(args, i);
  if (typeof v !== 'boolean') throw operandError(i + 1, 'boolean', v);
  return v;
}

export function arr(args: readonly Value[], i: number): readonly Value[] {
  const v = at(args, i);
  if (!Array.isArray(v)) throw operandError(i + 1, 'array', v);
  return v;
}

export function obj(args: readonly Value[], i: number): RObject {
  const v = at(args, i);
  if (!(v instanceof RObject)) throw operandError(i + 1, 'object', v);
  return v;
}

export function set(args: readonly Value[], i: number): RSet {
  const v = at(args, i);
  if (!(v instanceof RSet)) throw operandError(i + 1, 'set', v);
  return v;
}

/** Elements of an array or set (set elements in sorted order). */
export function arrOrSet(args: readonly Value[], i: number): readonly Value[] {
  const v = at(args, i);
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw operandError(i + 1, ['array', 'set'], v);
}

/** An array or set of strings (OPA's StringSliceOperand). */
export function strings(args: readonly Value[], i: number): string[] {
  const v = at(args, i);
  const items = arrOrSet(args, i);
  const out: string[] = [];
  for (const x of items) {
    if (typeof x !== 'string') throw operandElementError(i + 1, v, x, 'string');
    out.push(x);
  }
  return out;
}

/** The raw argument, for builtins that accept any type. */
export function any(args: readonly Value[], i: number): Value {
  return at(args, i);
}

/** Throws OPA's type error unless the argument has one of the given type names. */
export function oneOf(args: readonly Value[], i: number, ...expected: string[]): Value {
  const v = at(args, i);
  const t = v === null ? 'null' : Array.isArray(v) ? 'array' : v instanceof RObject ? 'object' : v instanceof RSet ? 'set' : typeof v === 'bigint' ? 'number' : typeof v;
  if (!expected.includes(t)) throw operandError(i + 1, expected, v);
  return v;
}
