/**
 * JSON as OPA's Go code produces and reads it: encoding/json's escaping (HTML-safe, U+2028/9),
 * sorted keys, non-string object keys encoded as JSON text, MarshalIndent's layout; and a decoder
 * with encoding/json's error messages that keeps number text exact (json.Number).
 */
import { NumLit, RObject, RSet, compareStrings, numberValue, quoteGo, type Value } from '../../value.js';
import { decimalToValue } from '../bigfloat/index.js';
import { JSON_ESCAPES } from '../../value-json.js';

const HEX = '0123456789abcdef';

/** A JSON string literal as Go's encoder writes it (HTML escaping on, lone surrogates → U+FFFD). */
export function quoteJSON(s: string, escapeHTML = true): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20) {
      esc =
        c === 10
          ? '\\n'
          : c === 13
            ? '\\r'
            : c === 9
              ? '\\t'
              : c === 8
                ? '\\b'
                : c === 12
                  ? '\\f'
                  : `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    } else if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = '\\\\';
    else if (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26)) esc = `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    else if (c === 0x2028 || c === 0x2029) esc = `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = '\ufffd';
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return `${out}${s.slice(start)}"`;
}

/** json.Number keeps a literal's text: json.marshal(1.0) is `1.0`. */
function numberText(n: number | bigint | NumLit): string {
  return typeof n === 'object' ? n.text : String(n);
}

/** Object entries as Go sees them after ast.JSON: string keys, later duplicates winning. */
function stringKeyed(o: RObject): [string, Value][] {
  const m = new Map<string, Value>();
  for (const [k, v] of o.entries()) m.set(typeof k === 'string' ? k : marshalJSON(k), v);
  return [...m.entries()].sort((a, b) => compareStrings(a[0], b[0]));
}

/** json.Marshal of OPA's ast.JSON(v): sets become arrays in sorted order. */
export function marshalJSON(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return numberText(v);
    case 'string':
      return quoteJSON(v);
    default:
      if (Array.isArray(v)) return `[${v.map(marshalJSON).join(',')}]`;
      if (v instanceof RSet) return `[${v.values().map(marshalJSON).join(',')}]`;
      if (v instanceof NumLit) return numberText(v);
      return `{${stringKeyed(v)
        .map(([k, x]) => `${quoteJSON(k)}:${marshalJSON(x)}`)
        .join(',')}}`;
  }
}

/** json.MarshalIndent(v, prefix, indent); the caller adds the first line's prefix as OPA does. */
export function marshalJSONIndent(v: Value, prefix: string, indent: string): string {
  const enc = (x: Value, depth: number): string => {
    const nl = (d: number): string => `\n${prefix}${indent.repeat(d)}`;
    if (Array.isArray(x) || x instanceof RSet) {
      const items = Array.isArray(x) ? x : x.values();
      if (items.length === 0) return '[]';
      return `[${items.map((i) => nl(depth + 1) + enc(i, depth + 1)).join(',')}${nl(depth)}]`;
    }
    if (x instanceof RObject) {
      const entries = stringKeyed(x);
      if (entries.length === 0) return '{}';
      return `{${entries.map(([k, i]) => `${nl(depth + 1)}${quoteJSON(k)}: ${enc(i, depth + 1)}`).join(',')}${nl(depth)}}`;
    }
    return marshalJSON(x);
  };
  return enc(v, 0);
}

// ---------------------------------------------------------------------------------------------
// Decoding with encoding/json's messages.

/** encoding/json's nesting limit. */
const MAX_DEPTH = 10_000;

/** Text encoding/json cannot decode, with its message. */
export class GoJSONError extends Error {}

/**
 * encoding/json's quoteChar: the offending *byte* in single quotes, shown as the rune of that byte
 * (so the lead byte of "é" shows as 'Ã').
 */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const byte = Buffer.from(c, 'utf8')[0] ?? 0;
  const q = quoteGo(String.fromCharCode(byte));
  return `'${q.slice(1, -1)}'`;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

class Reader {
  i = 0;
  depth = 0;
  constructor(readonly s: string) {}

  /** At end of input inside a value the stream decoder reports io.ErrUnexpectedEOF. */
  err(context: string): never {
    if (this.i >= this.s.length) throw new GoJSONError('unexpected EOF');
    throw new GoJSONError(`invalid character ${quoteChar(this.ch())} ${context}`);
  }

  ch(): string {
    const c = this.s.codePointAt(this.i);
    return c === undefined ? '' : String.fromCodePoint(c);
  }

  ws(): void {
    while (isSpace(this.s[this.i])) this.i++;
  }

  value(): Value {
    this.ws();
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || isDigit(c)) return this.number();
        return this.err('looking for beginning of value');
    }
  }

  private nest(): void {
    if (++this.depth > MAX_DEPTH) throw new GoJSONError('exceeded max depth');
  }

  private object(): Value {
    this.nest();
    this.i++;
    const o = new RObject();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      this.depth--;
      return o;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.err('looking for beginning of object key string');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.err('after object key');
      this.i++;
      o.set(k, this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        this.depth--;
        return o;
      }
      this.err('after object key:value pair');
    }
  }

  private array(): Value {
    this.nest();
    this.i++;
    const a: Value[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      this.depth--;
      return a;
    }
    for (;;) {
      a.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        this.depth--;
        return a;
      }
      this.err('after array element');
    }
  }

  private literal<T extends Value>(word: string, v: T): T {
    for (let k = 0; k < word.length; k++) {
      if (this.s[this.i] !== word[k]) this.err(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
      this.i++;
    }
    return v;
  }

  private number(): Value {
    const start = this.i;
    if (this.s[this.i] === '-') {
      this.i++;
      if (!isDigit(this.s[this.i])) this.err('in numeric literal');
    }
    if (this.s[this.i] === '0') this.i++;
    else while (isDigit(this.s[this.i])) this.i++;
    if (this.s[this.i] === '.') {
      this.i++;
      if (!isDigit(this.s[this.i])) this.err('after decimal point in numeric literal');
      while (isDigit(this.s[this.i])) this.i++;
    }
    if (this.s[this.i] === 'e' || this.s[this.i] === 'E') {
      this.i++;
      if (this.s[this.i] === '+' || this.s[this.i] === '-') this.i++;
      if (!isDigit(this.s[this.i])) this.err('in exponent of numeric literal');
      while (isDigit(this.s[this.i])) this.i++;
    }
    const text = this.s.slice(start, this.i);
    const v = decimalToValue(text);
    if (v === undefined) throw new GoJSONError(`json: cannot represent number ${text}`);
    return numberValue(text, v);
  }

  string(): string {
    this.i++;
    let out = '';
    let start = this.i;
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (Number.isNaN(c)) this.err('in string literal');
      if (c === 0x22) {
        out += this.s.slice(start, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.err('in string literal');
      if (c !== 0x5c) {
        this.i++;
        continue;
      }
      out += this.s.slice(start, this.i);
      this.i++;
      const e = this.s[this.i];
      const simple = e === undefined ? undefined : JSON_ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        this.i++;
        start = this.i;
        continue;
      }
      if (e !== 'u') this.err('in string escape code');
      out += this.unicodeEscape();
      start = this.i;
    }
  }

  private hex4(): number {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      this.i++;
      const c = this.s[this.i];
      if (c === undefined || !/[0-9a-fA-F]/.test(c)) this.err('in \\u hexadecimal character escape');
      n = n * 16 + parseInt(c!, 16);
    }
    return n;
  }

  /** \uXXXX (cursor on 'u'); pairs of surrogate escapes combine, lone ones become U+FFFD. */
  private unicodeEscape(): string {
    const hi = this.hex4();
    this.i++;
    if (hi < 0xd800 || hi > 0xdfff) return String.fromCharCode(hi);
    if (hi <= 0xdbff && this.s[this.i] === '\\' && this.s[this.i + 1] === 'u') {
      const save = this.i;
      this.i++;
      const lo = this.hex4();
      this.i++;
      if (lo >= 0xdc00 && lo <= 0xdfff) return String.fromCharCode(hi, lo);
      this.i = save;
    }
    return '\ufffd';
  }
}

/** json.Valid: exactly one JSON value, surrounded only by whitespace. */
export function validJSON(text: string): boolean {
  try {
    const r = new Reader(text);
    r.value();
    r.ws();
    return r.i === text.length;
  } catch (e) {
    if (e instanceof GoJSONError) return false;
    throw e;
  }
}

/**
 * OPA's util.UnmarshalJSON: one value decoded by a stream decoder, then a peek at the next token,
 * which is an error unless it is absent (or, quirkily, `null`).
 */
export function unmarshalJSON(text: string): Value {
  const r = new Reader(text);
  r.ws();
  if (r.i >= text.length) throw new GoJSONError('EOF');
  const v = r.value();
  r.ws();
  if (r.i < text.length) trailingToken(r);
  return v;
}

function trailingToken(r: Reader): void {
  const c = r.s[r.i]!;
  if (c === '[' || c === '{') throw new GoJSONError(`error: invalid character '${c}' after top-level value`);
  if (c === ']' || c === '}' || c === ',' || c === ':') r.err('looking for beginning of value');
  const start = r.i;
  const v = r.value();
  if (v === null) return;
  const shown = typeof v === 'string' ? v : typeof v === 'boolean' ? `%!s(bool=${v})` : r.s.slice(start, r.i);
  throw new GoJSONError(`error: invalid character '${shown}' after top-level value`);
}
