/** array.concat, array.flatten, array.slice and array.reverse (OPA's topdown/array.go). */
import { operandError, operandErrorText } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const arrayOfAny = T.array();

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  'array.concat': { args: [arrayOfAny, arrayOfAny], result: arrayOfAny },
  'array.slice': { args: [arrayOfAny, T.number, T.number], result: arrayOfAny },
  'array.reverse': { args: [arrayOfAny], result: arrayOfAny },
  'array.flatten': { args: [arrayOfAny], result: arrayOfAny },
};

/**
 * OPA's IntOperand: an integer (any size; huge ones only matter for clamping below), or the
 * `must be integer number` error.
 */
function intOperand(args: readonly Value[], i: number): number {
  let v = A.any(args, i);
  if (v instanceof NumLit) v = A.intLiteral(v, i);
  if (typeof v === 'bigint') {
    // NB: OPA's int is 64 bits; beyond that it reports a floating-point operand.
    if (v > 9223372036854775807n || v < -9223372036854775808n) {
      throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
    }
    return v < 0n ? -Infinity : Infinity;
  }
  if (typeof v !== 'number') throw operandError(i + 1, 'number', v);
  if (!Number.isInteger(v)) throw operandErrorText(i + 1, 'must be integer number but got floating-point number');
  return v;
}

function sliceImpl(args: readonly Value[]): Value {
  const arr = A.arr(args, 0);
  let start = intOperand(args, 1);
  let stop = intOperand(args, 2);
  // Clamp as OPA does: stop into [0, len], start into [0, stop].
  if (stop < 0) stop = 0;
  else if (stop > arr.length) stop = arr.length;
  if (start < 0) start = 0;
  else if (start > stop) start = stop;
  return arr.slice(start, stop);
}

const impls: Record<string, BuiltinImpl> = {
  'array.concat': (args) => {
    const a = A.arr(args, 0);
    const b = A.arr(args, 1);
    return [...a, ...b];
  },
  'array.slice': sliceImpl,
  'array.reverse': (args) => [...A.arr(args, 0)].reverse(),
  // One level: array elements are spliced in, anything else is kept, so flatten([a, b]) == concat(a, b).
  'array.flatten': (args) => A.arr(args, 0).flatMap((x) => (Array.isArray(x) ? x : [x])),
};

export function register(r: BuiltinRegistry): void {
  for (const [name, decl] of Object.entries(decls)) r.add({ name, ...decl }, impls[name]!);
}
