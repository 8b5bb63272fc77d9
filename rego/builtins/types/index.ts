/** Comparison operators, type predicates, type_name and the deprecated casts. */
import type { BuiltinRegistry } from '../registry.js';
import * as comparison from './comparison.js';
import * as types from './types.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  comparison.register(r);
  types.register(r);
}
