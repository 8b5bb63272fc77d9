/** Type predicates (is_*), type_name, and the casts deprecated since OPA v0.13 (cast_*). */
import { operandError } from '../../errors.js';
import { T, type Type } from '../../types.js';
import { RObject, RSet, isNumber, typeName, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const predicates: Record<string, (v: Value) => boolean> = {
  is_number: isNumber,
  is_string: (v) => typeof v === 'string',
  is_boolean: (v) => typeof v === 'boolean',
  is_array: (v) => Array.isArray(v),
  is_set: (v) => v instanceof RSet,
  is_object: (v) => v instanceof RObject,
  is_null: (v) => v === null,
};

/** cast_* return their operand when it already has the type (arrays and sets convert). */
const casts: Record<string, { result: Type; impl: BuiltinImpl }> = {
  cast_array: {
    result: T.array(),
    impl: (args) => {
      const v = A.any(args, 0);
      if (Array.isArray(v)) return v;
      if (v instanceof RSet) return v.values();
      throw operandError(1, ['array', 'set'], v);
    },
  },
  cast_set: {
    result: T.set(),
    impl: (args) => {
      const v = A.any(args, 0);
      if (v instanceof RSet) return v;
      if (Array.isArray(v)) return RSet.from(v);
      throw operandError(1, ['array', 'set'], v);
    },
  },
  cast_string: { result: T.string, impl: (args) => A.str(args, 0) },
  cast_boolean: { result: T.boolean, impl: (args) => A.bool(args, 0) },
  cast_null: {
    result: T.null,
    impl: (args) => {
      const v = A.any(args, 0);
      if (v !== null) throw operandError(1, 'null', v);
      return null;
    },
  },
  cast_object: { result: T.object(), impl: (args) => A.obj(args, 0) },
};

export function register(r: BuiltinRegistry): void {
  for (const [name, test] of Object.entries(predicates)) {
    const decl: BuiltinDecl = { name, args: [T.any], result: T.boolean };
    r.add(decl, (args) => test(A.any(args, 0)));
  }
  r.add({ name: 'type_name', args: [T.any], result: T.string }, (args) => typeName(A.any(args, 0)));
  for (const [name, c] of Object.entries(casts)) {
    r.add({ name, args: [T.any], result: c.result, deprecated: true }, c.impl);
  }
}
