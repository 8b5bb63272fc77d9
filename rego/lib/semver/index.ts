/**
 * Semantic versions as OPA's semver.* builtins read and order them (internal/semver).
 *
 * API: parseSemVer(s) → SemVer | undefined; compareSemVer(a, b) → -1 | 0 | 1.
 */
export { compareSemVer, parseSemVer, type SemVer } from './semver.js';
