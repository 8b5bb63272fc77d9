/** Networks: net.cidr_* and uri.*. */
import type { BuiltinRegistry } from '../registry.js';
import * as cidr from './cidr.js';
import * as uri from './uri.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  cidr.register(r);
  uri.register(r);
}
