/** Bitwise builtins on exact integers of any size (OPA's topdown/bits.go, big.Int semantics). */
import { BuiltinError, operandError, operandErrorText } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, normNum, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinImpl, BuiltinRegistry } from '../registry.js';

/** Largest shift we perform: beyond it the result alone would take megabytes. */
export const MAX_SHIFT_BITS = 1 << 24;

/** OPA's IntOperand for the shift count: a (64-bit) integer that must not be negative. */
function shiftCount(args: readonly Value[]): number {
  let v = A.any(args, 1);
  if (v instanceof NumLit) v = A.intLiteral(v, 1);
  if (typeof v !== 'number' && typeof v !== 'bigint') throw operandError(2, 'number', v);
  if (typeof v === 'number' && !Number.isInteger(v)) {
    throw operandErrorText(2, 'must be integer number but got floating-point number');
  }
  if (v < 0) throw operandErrorText(2, 'must be an unsigned integer number but got a negative integer');
  if (v > MAX_SHIFT_BITS) throw new BuiltinError(`shift of ${v} bits exceeds the limit of ${MAX_SHIFT_BITS}`);
  return Number(v);
}

function binary(op: (x: bigint, y: bigint) => bigint): BuiltinImpl {
  return (args) => normNum(op(A.bigint(args, 0), A.bigint(args, 1)));
}

const impls: Record<string, { arity: 1 | 2; impl: BuiltinImpl }> = {
  'bits.or': { arity: 2, impl: binary((x, y) => x | y) },
  'bits.and': { arity: 2, impl: binary((x, y) => x & y) },
  'bits.xor': { arity: 2, impl: binary((x, y) => x ^ y) },
  'bits.negate': { arity: 1, impl: (args) => normNum(~A.bigint(args, 0)) },
  'bits.lsh': {
    arity: 2,
    impl: (args) => {
      const x = A.bigint(args, 0);
      return normNum(x << BigInt(shiftCount(args)));
    },
  },
  'bits.rsh': {
    arity: 2,
    impl: (args) => {
      const x = A.bigint(args, 0);
      // BigInt >> is arithmetic (floors negatives), as big.Int.Rsh is.
      return normNum(x >> BigInt(shiftCount(args)));
    },
  },
};

export function register(r: BuiltinRegistry): void {
  for (const [name, { arity, impl }] of Object.entries(impls)) {
    r.add({ name, args: arity === 1 ? [T.number] : [T.number, T.number], result: T.number }, impl);
  }
}
