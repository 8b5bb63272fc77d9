/**
 * Keyset page tokens: the position after a page's last row, `[instant, id]` as base64url JSON, opaque to clients.
 * Every keyset-paged listing of the store (A2A tasks, the audit API) reads and writes them here; a token this module
 * did not make is a RangeError, which the routes answer with 400.
 */

/** A row's position: its ordering instant, as the listing writes it (ISO 8601), and its id. */
export interface KeysetPosition {
  at: string;
  id: string;
}

export function encodePageToken(p: KeysetPosition): string {
  return Buffer.from(JSON.stringify([p.at, p.id])).toString('base64url');
}

/** The position of a token; `validAt` says whether its instant is one the listing writes (its precision). */
export function decodePageToken(token: string, validAt: (at: string) => boolean): KeysetPosition {
  const invalid = () => new RangeError('invalid page token');
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 2) throw invalid();
  const [at, id] = value as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || id === '') throw invalid();
  if (Number.isNaN(Date.parse(at)) || !validAt(at)) throw invalid();
  return { at, id };
}
