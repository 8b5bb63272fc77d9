/**
 * OPA's internal/semver (after coreos/go-semver): a lenient parser — optional leading "v", int64
 * major.minor.patch with signs and leading zeros allowed, "-pre.release" and "+build" identifiers —
 * and SemVer precedence with build metadata ignored.
 */

export interface SemVer {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly preRelease: string;
  readonly metadata: string;
}

const IDENTIFIERS = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;
/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64. */
const INT = /^[+-]?\d+$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

function cut(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

function parseInt64(s: string): bigint | undefined {
  if (!INT.test(s)) return undefined;
  const v = BigInt(s);
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

/**
 * OPA's lenient SemVer parser: an optional leading "v", then "major.minor.patch" (each any int64,
 * leading zeros and signs allowed), "-pre.release" and "+build" identifiers.
 */
export function parseSemVer(version: string): SemVer | undefined {
  const [withPre, metadata] = cut(version.startsWith('v') ? version.slice(1) : version, '+');
  if (metadata !== '' && !IDENTIFIERS.test(metadata)) return undefined;
  const [core, preRelease] = cut(withPre, '-');
  if (preRelease !== '' && !IDENTIFIERS.test(preRelease)) return undefined;
  const parts = core.split('.');
  if (parts.length !== 3) return undefined;
  const [major, minor, patch] = parts.map(parseInt64);
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  return { major, minor, patch, preRelease, metadata };
}

const allDigits = (s: string): boolean => /^\d+$/.test(s);

/** strconv.Atoi of a digit string, saturating at int64 like Go does on overflow. */
function atoi(s: string): bigint {
  const v = BigInt(s);
  return v > INT64_MAX ? INT64_MAX : v;
}

const sign = (a: bigint, b: bigint): number => (a > b ? 1 : a < b ? -1 : 0);

/** SemVer precedence (spec item 11); build metadata is ignored. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const c = sign(a.major, b.major) || sign(a.minor, b.minor) || sign(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.preRelease === b.preRelease) return 0;
  if (a.preRelease === '') return 1;
  if (b.preRelease === '') return -1;
  let [x, restA] = cut(a.preRelease, '.');
  let [y, restB] = cut(b.preRelease, '.');
  for (;;) {
    // NB: OPA loops forever here when pre-releases differ only in numeric spelling ("01" vs "1").
    if (x === '' && y === '') return 0;
    if (x === '' && y !== '') return -1;
    if (x !== '' && y === '') return 1;
    const xi = allDigits(x);
    const yi = allDigits(y);
    if (xi && !yi) return -1;
    if (!xi && yi) return 1;
    if (xi && yi) {
      const d = sign(atoi(x), atoi(y));
      if (d !== 0) return d;
    } else if (x !== y) {
      return x > y ? 1 : -1;
    }
    if (restA !== '' && restB === '') return 1;
    if (restA === '' && restB !== '') return -1;
    [x, restA] = cut(restA, '.');
    [y, restB] = cut(restB, '.');
  }
}
