/**
 * github.com/yashtewari/glob-intersection: whether two simple globs (characters, `.`, `[...]` sets,
 * each optionally followed by `*` or `+`) match at least one common string, with the library's
 * greedy answers and error texts.
 *
 * API: globsIntersect(lhs, rhs, onStep?) → boolean; throws GlobIntersectionError.
 */
export { GlobIntersectionError, globsIntersect } from './intersect.js';
