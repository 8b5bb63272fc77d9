import { randomBytes } from 'node:crypto';

/** Prefixed, URL-safe random ids (`ctx_…`, `aud_…`): readable in logs, 128 bits of randomness. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
