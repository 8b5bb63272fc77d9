/** Text forms of values: JSON (as OPA serializes results) and Rego term syntax (as OPA prints terms). */
import { RObject, RSet, type Value } from './value-core.js';
import { NumLit, compareStrings } from './value-scalar.js';

export interface JSONTextOptions {
  /** Escape <, > and & as \u003c etc., like Go's json.Marshal. @default false */
  escapeHTML?: boolean;
}

/** A literal keeps its text (OPA prints `1.0` as `1.0`); other numbers print as `String(n)`. */
export function numberText(n: number | bigint | NumLit): string {
  return typeof n === 'object' ? n.text : String(n);
}

function quoteJSON(s: string, escapeHTML: boolean): string {
  let q = JSON.stringify(s);
  // NB: Go's encoder also escapes U+2028/U+2029; JSON.stringify leaves them raw.
  q = q.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
  if (escapeHTML) q = q.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return q;
}

/**
 * Compact JSON text. Sets become arrays in sorted order; objects with non-string keys use the key's
 * own JSON text (OPA's conversion), and object keys are emitted in sorted string order as Go does.
 */
export function toJSONText(v: Value, opts: JSONTextOptions = {}): string {
  const html = opts.escapeHTML === true;
  const enc = (x: Value): string => {
    if (x === null) return 'null';
    switch (typeof x) {
      case 'boolean':
        return x ? 'true' : 'false';
      case 'number':
      case 'bigint':
        return numberText(x);
      case 'string':
        return quoteJSON(x, html);
      default:
        if (Array.isArray(x)) return `[${x.map(enc).join(',')}]`;
        if (x instanceof RSet) return `[${x.values().map(enc).join(',')}]`;
        if (x instanceof NumLit) return x.text;
        return encObject(x);
    }
  };
  const encObject = (o: RObject): string => {
    const parts: [string, Value][] = o
      .entries()
      .map(([k, val]) => [typeof k === 'string' ? k : toJSONText(k, opts), val]);
    if (parts.some(([,], i) => i > 0 && compareStrings(parts[i - 1]![0], parts[i]![0]) > 0)) {
      parts.sort((a, b) => compareStrings(a[0], b[0]));
    }
    return `{${parts.map(([k, val]) => `${quoteJSON(k, html)}:${enc(val)}`).join(',')}}`;
  };
  return enc(v);
}

/** Quotes like Go's strconv.Quote: printable Unicode stays, control characters are escaped. */
export function quoteGo(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\x0b':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0xfeff || (c >= 0xd800 && c < 0xe000)) {
      out += c <= 0xffff ? `\\u${c.toString(16).padStart(4, '0')}` : `\\U${c.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** Rego term syntax: `{"a": 1}`, `[1, 2]`, `{1, 2}`, `set()`. */
export function toRegoText(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return numberText(v);
    case 'string':
      return quoteGo(v);
    default:
      if (Array.isArray(v)) return `[${v.map(toRegoText).join(', ')}]`;
      if (v instanceof NumLit) return v.text;
      if (v instanceof RSet) return v.size === 0 ? 'set()' : `{${v.values().map(toRegoText).join(', ')}}`;
      return `{${v
        .entries()
        .map(([k, x]) => `${toRegoText(k)}: ${toRegoText(x)}`)
        .join(', ')}}`;
  }
}
