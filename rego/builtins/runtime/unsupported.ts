/**
 * Builtins Steward deliberately does not provide. Policies that call them fail to compile with a
 * clear message instead of silently evaluating to undefined.
 */
import type { BuiltinRegistry } from '../registry.js';

/** name → [reason, OPA arity] */
const unsupported: Record<string, readonly [string, number]> = {
  'http.send': ['policies must not make network calls from the request path; fetch data into the bundle instead', 1],
  'net.lookup_ip_addr': ['DNS lookups are network I/O and are not allowed in policy evaluation', 1],
};

export function register(r: BuiltinRegistry): void {
  for (const [name, [reason, arity]] of Object.entries(unsupported)) {
    if (!r.has(name)) r.addUnsupported(name, reason, arity);
  }
}

export const UNSUPPORTED_BUILTINS: Readonly<Record<string, readonly [string, number]>> = unsupported;
