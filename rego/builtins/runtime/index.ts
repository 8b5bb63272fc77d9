/** Runtime and plumbing builtins (opa.runtime, print, trace, rego.metadata.*) and the builtins Steward refuses. */
import type { BuiltinRegistry } from '../registry.js';
import * as runtime from './runtime.js';
import * as unsupported from './unsupported.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  runtime.register(r);
  unsupported.register(r);
}
