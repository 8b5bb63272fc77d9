/** Encodings: base64, base64url, hex, urlquery, json.* and yaml.*. */
import type { BuiltinRegistry } from '../registry.js';
import * as encoding from './encoding.js';
import * as yaml from './yaml.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  encoding.register(r);
  yaml.register(r);
}
