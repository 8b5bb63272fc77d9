/**
 * What builtins cost and how large their results may be, so that an evaluation's step budget and
 * deadline bound every builtin call, however large its arguments (docs/rego-support.md, "Limits").
 *
 * A unit of charge is one step of the evaluation's budget: one element of a collection, or
 * TEXT_CHARS_PER_STEP characters of text. Builtins whose work grows with their arguments charge it
 * BEFORE doing it (ctx.charge), so a call too large for the budget fails without being run, and
 * results past MAX_RESULT_ELEMENTS / MAX_RESULT_CHARS are refused with a typed limit error.
 */
import { RegoLimitError } from '../errors.js';
import { RObject, RSet, type Value } from '../value.js';
import type { BuiltinContext } from './registry.js';

/** Most elements one builtin result may have (array, set or object entries). */
export const MAX_RESULT_ELEMENTS = 1_000_000;
/** Most characters (UTF-16 code units) one builtin string result may have: 16 Mi. */
export const MAX_RESULT_CHARS = 16 * 1024 * 1024;
/** Characters of text that count as one step (regex engines, encoders and string scans do ~this much per µs). */
export const TEXT_CHARS_PER_STEP = 64;

export function textUnits(chars: number): number {
  return Math.ceil(chars / TEXT_CHARS_PER_STEP);
}

/** Throws the size limit error when a result of n elements would be too large. */
export function checkElements(n: number): void {
  if (n > MAX_RESULT_ELEMENTS) throw new RegoLimitError('size', MAX_RESULT_ELEMENTS, 'elements');
}

/** Throws the size limit error when a string result of n characters would be too large. */
export function checkChars(n: number): void {
  if (n > MAX_RESULT_CHARS) throw new RegoLimitError('size', MAX_RESULT_CHARS, 'characters');
}

/** Checks, then charges, a result of n elements about to be built. */
export function chargeElements(ctx: BuiltinContext, n: number): void {
  checkElements(n);
  ctx.charge(n);
}

/** Checks, then charges, a string result of n characters about to be built. */
export function chargeChars(ctx: BuiltinContext, n: number): void {
  checkChars(n);
  ctx.charge(textUnits(n));
}

/** The charge for reading a value's top level: its elements, or its text. */
export function shallowUnits(v: Value): number {
  if (typeof v === 'string') return textUnits(v.length);
  if (Array.isArray(v)) return v.length;
  if (v instanceof RObject || v instanceof RSet) return v.size;
  return 0;
}

/** Throws when a builtin's result is past the size limits (O(1): only its top level is looked at). */
export function checkResult(v: Value): void {
  if (typeof v === 'string') checkChars(v.length);
  else if (Array.isArray(v)) checkElements(v.length);
  else if (v instanceof RObject || v instanceof RSet) checkElements(v.size);
}

/**
 * A value's whole size (every nested element, and the characters of its strings and keys), as an
 * encoder's output would be; charged as it is measured, and refused past the limits.
 */
export function chargeDeep(ctx: BuiltinContext, v: Value): void {
  let elements = 0;
  let chars = 0;
  const visit = (x: Value): void => {
    if (++elements > MAX_RESULT_ELEMENTS) checkElements(elements);
    if ((elements & 0xfff) === 0) ctx.charge(0x1000);
    if (typeof x === 'string') {
      chars += x.length;
      checkChars(chars);
    } else if (Array.isArray(x)) {
      for (const y of x) visit(y);
    } else if (x instanceof RSet) {
      for (const y of x.values()) visit(y);
    } else if (x instanceof RObject) {
      for (const [k, y] of x.entries()) {
        visit(k);
        visit(y);
      }
    }
  };
  visit(v);
  ctx.charge((elements & 0xfff) + textUnits(chars));
}

/**
 * Builtins whose work grows with the size of their arguments: the evaluator charges their arguments'
 * top-level size before the call and their result's size after it. Builtins that are O(1) on large
 * values (count, object.get, startswith …) are left out, so a loop calling them is not charged n².
 */
export const LINEAR_COST: ReadonlySet<string> = new Set([
  // aggregates and arrays
  'sort',
  'sum',
  'product',
  'max',
  'min',
  'any',
  'all',
  'array.concat',
  'array.slice',
  'array.reverse',
  'array.flatten',
  // sets and objects
  'and',
  'or',
  'intersection',
  'union',
  'set_diff',
  'minus',
  'object.keys',
  'object.remove',
  'object.filter',
  'object.union',
  'object.union_n',
  'object.subset',
  'json.filter',
  'json.remove',
  'json.patch',
  'graph.reachable',
  'graph.reachable_paths',
  // strings
  'concat',
  'contains',
  'indexof',
  'indexof_n',
  'lower',
  'upper',
  'replace',
  'split',
  'sprintf',
  'trim',
  'trim_left',
  'trim_right',
  'trim_space',
  'strings.count',
  'strings.replace_n',
  'strings.reverse',
  'strings.any_prefix_match',
  'strings.any_suffix_match',
  'strings.render_template',
  'substring',
  // regular expressions and globs
  'regex.match',
  're_match',
  'regex.split',
  'regex.find_n',
  'regex.find_all_string_submatch_n',
  'regex.replace',
  'regex.template_match',
  'regex.globs_match',
  'glob.match',
  'glob.quote_meta',
  // encoders and decoders
  'json.marshal',
  'json.marshal_with_options',
  'json.unmarshal',
  'json.is_valid',
  'yaml.marshal',
  'yaml.unmarshal',
  'yaml.is_valid',
  'base64.encode',
  'base64.decode',
  'base64url.encode',
  'base64url.encode_no_pad',
  'base64url.decode',
  'base64.is_valid',
  'hex.encode',
  'hex.decode',
  'urlquery.encode',
  'urlquery.decode',
  'urlquery.encode_object',
  'urlquery.decode_object',
  'crypto.md5',
  'crypto.sha1',
  'crypto.sha256',
  'crypto.hmac.md5',
  'crypto.hmac.sha1',
  'crypto.hmac.sha256',
  'crypto.hmac.sha512',
  'units.parse',
  'units.parse_bytes',
  'to_number',
  'json.match_schema',
  'json.verify_schema',
]);
