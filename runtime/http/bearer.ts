import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries `Bearer <token>`; compared as SHA-256 digests in constant time. No
 * token configured: nothing matches.
 */
export function bearerTokenMatcher(token: string | undefined): (authorization: string | undefined) => boolean {
  const expected = token ? createHash('sha256').update(token).digest() : undefined;
  return (authorization) => {
    if (!expected || !authorization) return false;
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    return !!match && timingSafeEqual(createHash('sha256').update(match[1]!).digest(), expected);
  };
}
