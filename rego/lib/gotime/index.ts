/**
 * Go's time package as OPA's time.* builtins use it: exact int64 nanosecond instants, the proleptic
 * Gregorian calendar, reference-time layouts ("Mon Jan 2 15:04:05 MST 2006") for Parse and Format,
 * ParseDuration (with OPA's d, w and y units), and LoadLocation over the IANA zones in Node's ICU.
 *
 * API: parseTime(layout, value) → ns; formatTime(ns, zone, layout) → string; parseDuration(s) → ns;
 * loadLocation(name) → Zone; civilIn(ns, zone); addDate(ns, zone, y, m, d); resolveLayout(name);
 * failures throw TimeError with Go's text.
 */
export { LONG_DAYS, MAX_NS, MIN_NS, NS_PER_SEC, daysIn, unixFromCivil, type Civil } from './civil.js';
export { addDate, civilIn } from './date.js';
export { parseDuration } from './duration.js';
export { TimeError } from './errors.js';
export { formatTime } from './format.js';
export { NAMED_LAYOUTS, resolveLayout } from './layout.js';
export { parseTime } from './parse.js';
export { UTC, fixedZone, loadLocation, type Zone } from './zone.js';
