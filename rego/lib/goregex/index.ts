/**
 * Go's regexp package: RE2 syntax and linear-time matching on re2js, with Go's "all matches" loops,
 * Split and Expand, and a native V8 fast path used only when it provably gives the same results
 * (native.ts, translate.ts). Positions are UTF-16 indices into the JS string.
 *
 * API: compileRegexp(pattern) → GoRegexp (cached; throws RegexpSyntaxError with Go's text),
 * isValidRegexp(pattern), quoteMeta(s), and GoRegexp's matchString, findAllIndex, findAllSubmatch,
 * split and replaceOPA.
 */
export { GoRegexp } from './regexp.js';
export { MAX_CACHED_PATTERN, RegexpSyntaxError, compileRegexp, isValidRegexp, quoteMeta } from './compile.js';
