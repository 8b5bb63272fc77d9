/**
 * Compiling a builtin's pattern argument: Go's regexp.Compile (lib/goregex) through the call site's
 * memo, with an invalid pattern reported as a builtin error.
 */
import { GoRegexp, MAX_CACHED_PATTERN, RegexpSyntaxError, compileRegexp } from '../../lib/goregex/index.js';
import { libraryCall } from '../lib-errors.js';
import type { CallSite } from '../registry.js';

/** compileRegexp, with Go's `error parsing regexp: …` text as a BuiltinError. */
export function compilePattern(pattern: string): GoRegexp {
  return libraryCall([RegexpSyntaxError], () => compileRegexp(pattern));
}

/**
 * compilePattern through a call site's memo: the pattern compiled there last, when it is this one (policies pass
 * the same constant pattern at a site on every evaluation). Long patterns are not kept, as in the cache.
 */
export function compilePatternAt(pattern: string, site: CallSite | undefined): GoRegexp {
  const m = site?.memo;
  if (m instanceof GoRegexp && m.pattern === pattern) return m;
  const r = compilePattern(pattern);
  if (site !== undefined && pattern.length <= MAX_CACHED_PATTERN) site.memo = r;
  return r;
}
