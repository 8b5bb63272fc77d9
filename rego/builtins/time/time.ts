/**
 * time.* builtins (OPA v1/topdown/time.go). Nanoseconds are exact: bigint inside, normalised to a
 * number when they fit. Layouts, parsing, durations and zones follow Go's `time` package.
 */
import { BuiltinError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, normNum, type Value } from '../../value.js';
import { int, str } from '../args.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';
import {
  LONG_DAYS,
  MAX_NS,
  MIN_NS,
  NAMED_LAYOUTS,
  TimeError,
  UTC,
  addDate,
  civilIn,
  daysIn,
  formatTime,
  loadLocation,
  parseDuration,
  parseTime,
  resolveLayout,
  type Civil,
  type Zone,
} from '../../lib/gotime/index.js';
import { libraryCall } from '../lib-errors.js';

const nsOrTz = T.anyOf(T.number, T.tuple(T.number, T.string));

const decls: Record<string, BuiltinDecl> = {
  now: { name: 'time.now_ns', args: [], result: T.number, nondeterministic: true },
  parse: { name: 'time.parse_ns', args: [T.string, T.string], result: T.number },
  rfc3339: { name: 'time.parse_rfc3339_ns', args: [T.string], result: T.number },
  duration: { name: 'time.parse_duration_ns', args: [T.string], result: T.number },
  format: {
    name: 'time.format',
    args: [T.anyOf(T.number, T.tuple(T.number, T.string), T.tuple(T.number, T.string, T.string))],
    result: T.string,
  },
  date: { name: 'time.date', args: [nsOrTz], result: T.tuple(T.number, T.number, T.number) },
  clock: { name: 'time.clock', args: [nsOrTz], result: T.tuple(T.number, T.number, T.number) },
  weekday: { name: 'time.weekday', args: [nsOrTz], result: T.string },
  addDate: { name: 'time.add_date', args: [T.number, T.number, T.number, T.number], result: T.number },
  diff: {
    name: 'time.diff',
    args: [nsOrTz, nsOrTz],
    result: T.tuple(T.number, T.number, T.number, T.number, T.number, T.number),
  },
};

const TZ_EXPECTED = 'either number (ns) or [number (ns), string (tz)]';

/** A point in time with the zone it is viewed in (OPA's tzTime result). */
interface ZonedTime {
  ns: bigint;
  zone: Zone;
  layout: string;
}

/** OPA's tzTime: `ns`, `[ns, tz]` or `[ns, tz, layout]`; `i` is the 0-based argument index. */
function zonedTime(args: readonly Value[], i: number): ZonedTime {
  const a = args[i]!;
  let n: Value;
  let zone = UTC;
  let layout = '';
  if (Array.isArray(a)) {
    if (a.length === 0) throw operandError(i + 1, TZ_EXPECTED, a);
    n = a[0]!;
    if (n instanceof NumLit) n = n.n;
    if (typeof n !== 'number' && typeof n !== 'bigint') throw operandError(i + 1, 'number', n);
    if (a.length > 1) {
      const tz = a[1]!;
      if (typeof tz !== 'string') throw operandError(i + 1, 'string', tz);
      zone = goTime(() => loadLocation(tz));
    }
    if (a.length > 2) {
      const l = a[2]!;
      if (typeof l !== 'string') throw operandError(i + 1, 'string', l);
      layout = l;
    }
  } else if (typeof a === 'number' || typeof a === 'bigint' || a instanceof NumLit) {
    n = a instanceof NumLit ? a.n : a;
  } else {
    throw operandError(i + 1, TZ_EXPECTED, a);
  }
  return { ns: toInt64(n), zone, layout };
}

/** The timestamp as int64 ns; OPA rejects non-integers and anything beyond int64 alike. */
function toInt64(n: number | bigint): bigint {
  if (typeof n === 'number' && !Number.isInteger(n)) throw new BuiltinError('timestamp too big');
  const b = BigInt(n);
  if (b < MIN_NS || b > MAX_NS) throw new BuiltinError('timestamp too big');
  return b;
}

/** Runs Go time code, its errors becoming builtin errors. */
const goTime = <R>(f: () => R): R => libraryCall([TimeError], f);

function safeNs(ns: bigint): Value {
  if (ns < MIN_NS || ns > MAX_NS) throw new BuiltinError('time outside of valid range');
  return normNum(ns);
}

function civilOf(t: ZonedTime): Civil {
  return civilIn(t.ns, t.zone);
}

/** Calendar difference [y, m, d, h, min, s] between two times, in the first one's zone. */
function diff(a: ZonedTime, b: ZonedTime): number[] {
  let t1 = a.ns;
  let t2 = b.ns;
  if (t1 > t2) [t1, t2] = [t2, t1];
  const c1 = civilIn(t1, a.zone);
  const c2 = civilIn(t2, a.zone);
  let year = c2.year - c1.year;
  let month = c2.month - c1.month;
  let day = c2.day - c1.day;
  let hour = c2.hour - c1.hour;
  let min = c2.minute - c1.minute;
  let sec = c2.second - c1.second;
  if (sec < 0) {
    sec += 60;
    min--;
  }
  if (min < 0) {
    min += 60;
    hour--;
  }
  if (hour < 0) {
    hour += 24;
    day--;
  }
  if (day < 0) {
    day += daysIn(c1.month, c1.year);
    month--;
  }
  if (month < 0) {
    month += 12;
    year--;
  }
  return [year, month, day, hour, min, sec];
}

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  now: (_args, ctx) => normNum(ctx.nowNs()),
  parse: (args) => {
    const layout = str(args, 0);
    const value = str(args, 1);
    return safeNs(goTime(() => parseTime(resolveLayout(layout), value)));
  },
  rfc3339: (args) => {
    const value = str(args, 0);
    return safeNs(goTime(() => parseTime(NAMED_LAYOUTS.RFC3339!, value)));
  },
  duration: (args) => {
    const s = str(args, 0);
    return normNum(goTime(() => parseDuration(s)));
  },
  format: (args) => {
    const t = zonedTime(args, 0);
    const layout = t.layout === '' ? NAMED_LAYOUTS.RFC3339Nano! : resolveLayout(t.layout);
    return formatTime(t.ns, t.zone, layout);
  },
  date: (args) => {
    const c = civilOf(zonedTime(args, 0));
    return [c.year, c.month, c.day];
  },
  clock: (args) => {
    const c = civilOf(zonedTime(args, 0));
    return [c.hour, c.minute, c.second];
  },
  weekday: (args) => LONG_DAYS[civilOf(zonedTime(args, 0)).weekday]!,
  addDate: (args) => {
    const t = zonedTime(args, 0);
    return safeNs(addDate(t.ns, t.zone, int(args, 1), int(args, 2), int(args, 3)));
  },
  diff: (args) => diff(zonedTime(args, 0), zonedTime(args, 1)),
};

export function register(r: BuiltinRegistry): void {
  for (const key of Object.keys(decls) as (keyof typeof decls)[]) r.add(decls[key]!, impls[key]);
}
