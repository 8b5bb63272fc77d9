/**
 * github.com/gobwas/glob v0.2.3 as OPA's glob.match uses it: the library's syntax and quirks
 * (syntax.ts), matched by an NFA in linear time (matcher.ts).
 *
 * API: compileGlob(pattern, separators: code points) → GlobMatcher (cached) with match(text);
 * parseGlob(pattern) → GlobNode; globQuoteMeta(s); failures throw GlobError with the library's text.
 */
export { GlobMatcher, compileGlob } from './matcher.js';
export { GlobError, globQuoteMeta, parseGlob, type GlobNode } from './syntax.js';
