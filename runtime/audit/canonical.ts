/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): one byte sequence per JSON value, so that a hash or a signature over
 * an audit row can be recomputed from the row read back later, by this code or by any other JCS implementation.
 *
 * JCS is defined on top of ECMAScript's own serialisation (RFC 8785 §3.2.2), so strings and numbers go through
 * `JSON.stringify`; what this file adds is the key order, the refusals, and the absence of whitespace.
 *
 * It is stricter than `JSON.stringify` wherever the latter would pick a silent, lossy answer: a hash over a value
 * that could not be read back unchanged would later look like tampering. So it throws on non-finite numbers,
 * lone surrogates, `undefined`, functions and symbols (except `undefined` object members, which are omitted),
 * bigint, and any object that is not a plain object or an array (`Date`, `Map`, `Buffer`, class instances:
 * `toJSON` is never called). Callers pass ISO strings for times.
 */
import { createHash } from 'node:crypto';

/** How deeply arrays and objects may nest; a cycle also ends here. */
export const CANONICAL_MAX_DEPTH = 200;

/** Why a value has no canonical form. */
export type CanonicalJsonReason = 'unsupported-type' | 'non-finite-number' | 'lone-surrogate' | 'too-deep';

/** A value with no canonical JSON. A TypeError, as `JSON.stringify` throws for what it cannot serialise. */
export class CanonicalJsonError extends TypeError {
  constructor(
    readonly reason: CanonicalJsonReason,
    /** Where in the value, as a JSONPath: `$`, `$.usage.tokens`, `$.steps[2]`, `$["a b"]`. */
    readonly path: string,
    message: string,
  ) {
    super(`canonical JSON: ${message} at ${path}`);
    this.name = 'CanonicalJsonError';
  }
}

/** The RFC 8785 canonical JSON text of `value`. */
export function canonicalJson(value: unknown): string {
  return new Canonicalizer().value(value, 0);
}

/** SHA-256 of the UTF-8 bytes of `canonicalJson(value)`. */
export function canonicalDigest(value: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest();
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Carries the path of the value being serialised, read only when something throws. */
class Canonicalizer {
  private readonly path: (string | number)[] = [];

  value(v: unknown, depth: number): string {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        // NB: JSON.stringify turns NaN and ±Infinity into `null` (RFC 8785 §3.2.2.3 says to fail) and -0 into `0`
        // (as the RFC wants); for finite numbers it is Number::toString, the RFC's algorithm.
        if (!Number.isFinite(v)) throw this.fail('non-finite-number', `${v} is not a JSON number`);
        return JSON.stringify(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object':
        if (v === null) return 'null';
        if (depth >= CANONICAL_MAX_DEPTH)
          throw this.fail('too-deep', `nesting deeper than ${CANONICAL_MAX_DEPTH} levels (or a cycle)`);
        if (Array.isArray(v)) return this.array(v, depth + 1);
        if (!isPlainObject(v)) throw this.fail('unsupported-type', `${describe(v)} is not a plain object`);
        return this.object(v as Record<string, unknown>, depth + 1);
      default:
        // undefined, function, symbol, bigint: no JSON value (bigint could exceed binary64, I-JSON's number range)
        throw this.fail('unsupported-type', `${typeof v} is not a JSON value`);
    }
  }

  private array(items: readonly unknown[], depth: number): string {
    let out = '[';
    // NB: an index loop, not forEach: a hole in a sparse array reads as undefined and is refused like one.
    for (let i = 0; i < items.length; i++) {
      this.path.push(i);
      out += (i === 0 ? '' : ',') + this.value(items[i], depth);
      this.path.pop();
    }
    return out + ']';
  }

  private object(o: Record<string, unknown>, depth: number): string {
    // The default sort compares UTF-16 code units, which is RFC 8785 §3.2.3's order. Object.keys (not for..in,
    // not a copy into a new object) keeps an own `__proto__` key as data, and never walks the prototype.
    const keys = Object.keys(o).sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const member = o[key];
      if (member === undefined) continue;
      this.path.push(key);
      out += (first ? '' : ',') + this.string(key) + ':' + this.value(member, depth);
      this.path.pop();
      first = false;
    }
    return out + '}';
  }

  private string(s: string): string {
    // RFC 8785 §3.2.2.2: lone surrogates must fail. JSON.stringify would escape them as `\udXXX`, but the store's
    // UTF-8 text turns them into U+FFFD, so the row read back would no longer match its hash.
    if (!s.isWellFormed()) throw this.fail('lone-surrogate', 'a string with a lone surrogate');
    return JSON.stringify(s);
  }

  private fail(reason: CanonicalJsonReason, message: string): CanonicalJsonError {
    return new CanonicalJsonError(reason, pathText(this.path), message);
  }
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(v: object): string {
  const name = (Object.getPrototypeOf(v) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype';
}

function pathText(path: readonly (string | number)[]): string {
  let out = '$';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
