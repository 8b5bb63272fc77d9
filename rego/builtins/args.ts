/**
 * Argument helpers for builtin implementations: each returns the operand with its TS type or throws
 * OPA's operand error (positions are 1-based in messages, indices 0-based here).
 */
import { operandElementError, operandError, operandErrorText } from '../errors.js';
import { NumLit, hasIntText, RObject, RSet, typeName, type Value } from '../value.js';

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

/** A number's value (a literal's text is dropped: arithmetic works on values, as OPA's big.Float does). */
export function num(args: readonly Value[], i: number): number | bigint {
  const v = at(args, i);
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof NumLit) return v.n;
  throw operandError(i + 1, 'number', v);
}

/**
 * An integer within ±(2^53−1); OPA's IntOperand, which parses the number's text with
 * json.Number.Int64: a literal written `1.0` or `1e3` is a floating-point number to it.
 */
export function int(args: readonly Value[], i: number): number {
  let v = at(args, i);
  if (v instanceof NumLit) v = intLiteral(v, i);
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
    return v;
  }
  if (typeof v === 'bigint') throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
  throw operandError(i + 1, 'number', v);
}

/**
 * A literal's value as IntOperand reads it (json.Number.Int64 of its text), or OPA's floating-point
 * operand error for argument index `i`: `-0` is an integer to it, `1.0` and `1e3` are not.
 */
export function intLiteral(v: NumLit, i: number): number | bigint {
  if (!hasIntText(v)) throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
  return v.n;
}

/** Any integer value, exactly (`1e3` and `1.0` too: OPA's BigIntOperand goes through big.Float). */
export function bigint(args: readonly Value[], i: number): bigint {
  let v = at(args, i);
  if (v instanceof NumLit) v = v.n;
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
  if (!expected.includes(typeName(v))) throw operandError(i + 1, expected, v);
  return v;
}
