/** Objects: object.*, json.filter/json.remove and json.patch. */
import type { BuiltinRegistry } from '../registry.js';
import * as objects from './objects.js';
import * as json_paths from './json-paths.js';
import * as json_patch from './json-patch.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  objects.register(r);
  json_paths.register(r);
  json_patch.register(r);
}
