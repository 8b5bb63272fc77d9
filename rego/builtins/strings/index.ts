/** Strings: strings.*, sprintf and strings.render_template. */
import type { BuiltinRegistry } from '../registry.js';
import * as strings from './strings.js';
import * as sprintf from './sprintf.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  strings.register(r);
  sprintf.register(r);
}
