/**
 * Time zones for the time.* builtins: Go's time.LoadLocation semantics over the IANA database that
 * ships with Node's ICU (Intl). Offsets are looked up per instant, so daylight saving and historic
 * rules apply as they do with Go's tzdata.
 */
import { TimeError } from './errors.js';

export interface Zone {
  /** Go's Location.String(): the name it was loaded by. */
  readonly name: string;
  /** Seconds east of UTC in effect at the instant. */
  offsetAt(unixSec: bigint): number;
  /** The zone abbreviation in effect at the instant ("PST", "CET", "+0530" …). */
  abbrAt(unixSec: bigint): string;
}

/** A zone with one offset for all time (UTC, and the fixed zones time.Parse invents). */
export function fixedZone(name: string, offsetSec: number): Zone {
  return { name, offsetAt: () => offsetSec, abbrAt: () => name };
}

export const UTC: Zone = fixedZone('UTC', 0);

// Intl accepts instants within ±8.64e15 ms; outside that no result is representable anyway.
const MAX_INTL_SEC = 8_640_000_000_000n;

function clampSec(s: bigint): number {
  return Number(s > MAX_INTL_SEC ? MAX_INTL_SEC : s < -MAX_INTL_SEC ? -MAX_INTL_SEC : s);
}

// Locales whose short zone names carry the tzdata abbreviations for most of the world's zones;
// tried in order until one yields a real abbreviation instead of "GMT+8".
const ABBR_LOCALES = ['en-US', 'en-GB', 'en-IN', 'en-AU', 'en-NZ', 'ja-JP'];

// tzdata abbreviations that no ICU locale reproduces: [standard, daylight]; '' means numeric.
const ABBR_OVERRIDES: Readonly<Record<string, readonly [string, string]>> = {
  'Asia/Shanghai': ['CST', 'CDT'],
  'Asia/Chongqing': ['CST', 'CDT'],
  PRC: ['CST', 'CDT'],
  'Asia/Taipei': ['CST', 'CDT'],
  'Asia/Macau': ['CST', 'CDT'],
  'Asia/Hong_Kong': ['HKT', 'HKST'],
  'Asia/Seoul': ['KST', 'KDT'],
  'Asia/Jerusalem': ['IST', 'IDT'],
  'Asia/Tel_Aviv': ['IST', 'IDT'],
  'Asia/Karachi': ['PKT', 'PKST'],
  'Asia/Jakarta': ['WIB', 'WIB'],
  'Asia/Makassar': ['WITA', 'WITA'],
  'Asia/Jayapura': ['WIT', 'WIT'],
  'Asia/Manila': ['PST', 'PDT'],
  'Africa/Johannesburg': ['SAST', 'SAST'],
  'Africa/Lagos': ['WAT', 'WAT'],
  'Africa/Nairobi': ['EAT', 'EAT'],
  'Africa/Maputo': ['CAT', 'CAT'],
  'Europe/Moscow': ['MSK', 'MSK'],
  'America/St_Johns': ['NST', 'NDT'],
  'Europe/Dublin': ['GMT', 'IST'],
  'Asia/Dubai': ['', ''],
};

class IntlZone implements Zone {
  private readonly fields: Intl.DateTimeFormat;
  private readonly namers = new Map<string, Intl.DateTimeFormat>();

  constructor(
    readonly name: string,
    private readonly iana: string,
  ) {
    this.fields = new Intl.DateTimeFormat('en-US', {
      timeZone: iana,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  offsetAt(unixSec: bigint): number {
    const sec = clampSec(unixSec);
    let year = 0;
    let bc = false;
    const f: Record<string, number> = {};
    for (const p of this.fields.formatToParts(new Date(sec * 1000))) {
      if (p.type === 'era') bc = p.value === 'BC' || p.value === 'B';
      else if (p.type !== 'literal') f[p.type] = Number(p.value);
    }
    year = f.year ?? 1970;
    if (bc) year = 1 - year;
    const localMs = Date.UTC(2000, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0, f.second ?? 0);
    // NB: Date.UTC maps years 0-99 to 1900-1999, so the year is set separately.
    const d = new Date(localMs);
    d.setUTCFullYear(year);
    return Math.round((d.getTime() - sec * 1000) / 1000);
  }

  abbrAt(unixSec: bigint): string {
    const sec = clampSec(unixSec);
    const offset = this.offsetAt(unixSec);
    const override = ABBR_OVERRIDES[this.iana];
    if (override) {
      const name = override[this.isDaylight(sec, offset) ? 1 : 0];
      return name === '' ? numericAbbr(offset) : name;
    }
    for (const loc of ABBR_LOCALES) {
      let namer = this.namers.get(loc);
      if (!namer) {
        namer = new Intl.DateTimeFormat(loc, { timeZone: this.iana, timeZoneName: 'short' });
        this.namers.set(loc, namer);
      }
      const name = namer.formatToParts(new Date(sec * 1000)).find((p) => p.type === 'timeZoneName')?.value ?? '';
      if (/^[A-Z]{3,5}$/.test(name) && (offset === 0 || (name !== 'GMT' && name !== 'UTC'))) return name;
    }
    return numericAbbr(offset);
  }

  /** Daylight time if the offset exceeds the smaller of the year's January and July offsets. */
  private isDaylight(sec: number, offset: number): boolean {
    const year = new Date(sec * 1000).getUTCFullYear();
    const jan = this.offsetAt(BigInt(Math.floor(Date.UTC(year, 0, 1) / 1000)));
    const jul = this.offsetAt(BigInt(Math.floor(Date.UTC(year, 6, 1) / 1000)));
    return offset > Math.min(jan, jul);
  }
}

/** tzdata's numeric abbreviations for zones without a letter one: "+08", "+0530", "-0330". */
function numericAbbr(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const h = String(Math.floor(abs / 3600)).padStart(2, '0');
  const m = Math.floor((abs % 3600) / 60);
  return m === 0 ? `${sign}${h}` : `${sign}${h}${String(m).padStart(2, '0')}`;
}

const cache = new Map<string, Zone>();
const MAX_CACHED = 512;

/** Go's time.LoadLocation: "" and "UTC" are UTC; "Local" is the engine's zone, which is UTC. */
export function loadLocation(name: string): Zone {
  if (name === '' || name === 'UTC') return UTC;
  // NB: OPA servers usually run with TZ=UTC; Steward pins Local to UTC so results never depend on the host.
  if (name === 'Local') return UTC;
  const hit = cache.get(name);
  if (hit) return hit;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) {
    throw new TimeError('time: invalid location name');
  }
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new TimeError(`unknown time zone ${name}`);
  }
  // Go's tzdata lookup is case-sensitive; ICU's is not.
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) {
    throw new TimeError(`unknown time zone ${name}`);
  }
  const zone = new IntlZone(name, name);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(name, zone);
  return zone;
}

/**
 * Go's time.Date resolution of a wall-clock time in `zone`: `localSec` is the wall clock read as
 * if it were UTC; the result is the instant's Unix seconds. In a gap or overlap Go picks the offset
 * in effect just before the transition, which the two-step lookup below reproduces.
 */
export function localToUnix(zone: Zone, localSec: bigint): bigint {
  const offset = zone.offsetAt(localSec);
  if (offset === 0) return localSec;
  // NB: Go skips the second lookup when the first offset is 0 (e.g. London in winter); so do we.
  return localSec - BigInt(zone.offsetAt(localSec - BigInt(offset)));
}
