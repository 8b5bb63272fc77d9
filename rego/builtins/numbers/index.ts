/** Numbers: arithmetic, numbers.range, rand.intn, to_number, bits.*, units.parse*. */
import type { BuiltinRegistry } from '../registry.js';
import * as numbers from './numbers.js';
import * as bits from './bits.js';
import * as units from './units.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  numbers.register(r);
  bits.register(r);
  units.register(r);
}
