/**
 * Go's strings and unicode/utf8 semantics on JS strings: Go works on UTF-8 runes, these work on code
 * points so that results match for every valid string; byte strings decode as Go decodes them, with
 * each invalid byte becoming U+FFFD.
 *
 * API: runeCount, runeIndex, isBMPOnly, toLower, toUpper, isSpace, trimCutset, trimSpace, split,
 * count, GoReplacer (strings.NewReplacer); goString(bytes).
 */
export {
  GoReplacer,
  count,
  isBMPOnly,
  isSpace,
  runeCount,
  runeIndex,
  split,
  toLower,
  toUpper,
  trimCutset,
  trimSpace,
} from './strings.js';
export { goString } from './utf8.js';
