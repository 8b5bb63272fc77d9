/**
 * Go's regexp.Compile over re2js, with a process-wide cache of compiled patterns (failures are cached
 * too, so a bad pattern is parsed once).
 */
import { RE2JS, RE2JSException } from 're2js';
import { LRU } from '../lru/index.js';
import { GoRegexp } from './regexp.js';

/** An invalid pattern, with Go's `error parsing regexp: …` text. */
export class RegexpSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexpSyntaxError';
  }
}

const REGEX_CACHE_SIZE = 256;
/**
 * Longest pattern the cache keeps. NB: patterns are user input; very long ones are compiled but not
 * cached, so one request cannot pin megabytes in the cache.
 */
export const MAX_CACHED_PATTERN = 4096;
const cache = new LRU<GoRegexp | RegexpSyntaxError>(REGEX_CACHE_SIZE);

function compileUncached(pattern: string): GoRegexp | RegexpSyntaxError {
  try {
    return new GoRegexp(pattern, RE2JS.compile(pattern));
  } catch (e) {
    if (e instanceof RE2JSException) return new RegexpSyntaxError(e.message);
    throw e;
  }
}

/** Go's regexp.Compile; invalid patterns throw a RegexpSyntaxError with Go's `error parsing regexp: …` text. */
export function compileRegexp(pattern: string): GoRegexp {
  let r = cache.get(pattern);
  if (r === undefined) {
    r = compileUncached(pattern);
    if (pattern.length <= MAX_CACHED_PATTERN) cache.set(pattern, r);
  }
  if (r instanceof RegexpSyntaxError) throw new RegexpSyntaxError(r.message);
  return r;
}

/** regexp/syntax.Parse validity. */
export function isValidRegexp(pattern: string): boolean {
  try {
    compileRegexp(pattern);
    return true;
  } catch (e) {
    if (e instanceof RegexpSyntaxError) return false;
    throw e;
  }
}

const META = /[\\.+*?()|[\]{}^$]/g;

/** Go's regexp.QuoteMeta */
export function quoteMeta(s: string): string {
  return s.replace(META, '\\$&');
}
