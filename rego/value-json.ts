/**
 * A JSON parser that keeps integers beyond 2^53 exact (as bigint), keeps a number's text where it is
 * not the number's own (`1.0`, `1e3`: OPA decodes JSON numbers as json.Number) and reports the
 * position of the first error. `JSON.parse` would silently round such integers.
 */
import { RObject, type Value } from './value-core.js';
import { NumLit, normNum, numberValue } from './value-scalar.js';

/** JSON's one-character escapes (after the backslash) and what they stand for; shared by every JSON reader. */
export const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export class JSONParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly row: number,
    readonly col: number,
  ) {
    super(`${message} at line ${row}, column ${col}`);
    this.name = 'JSONParseError';
  }
}

const MAX_DEPTH = 10_000;

export function parseJSON(text: string): Value {
  const p = new JSONReader(text);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i < text.length) p.fail('unexpected trailing characters');
  return v;
}

class JSONReader {
  i = 0;
  constructor(private readonly s: string) {}

  fail(msg: string, at = this.i): never {
    let row = 1;
    let col = 1;
    for (let k = 0; k < at && k < this.s.length; k++) {
      if (this.s.charCodeAt(k) === 10) {
        row++;
        col = 1;
      } else col++;
    }
    throw new JSONParseError(msg, at, row, col);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else return;
    }
  }

  value(depth: number): Value {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    const s = this.s;
    const c = s[this.i];
    switch (c) {
      case '{': {
        this.i++;
        const o = new RObject();
        this.ws();
        if (s[this.i] === '}') {
          this.i++;
          return o;
        }
        for (;;) {
          this.ws();
          if (s[this.i] !== '"') this.fail('expected string key');
          const k = this.string();
          this.ws();
          if (s[this.i] !== ':') this.fail("expected ':'");
          this.i++;
          this.ws();
          o.set(k, this.value(depth + 1));
          this.ws();
          if (s[this.i] === ',') {
            this.i++;
            continue;
          }
          if (s[this.i] === '}') {
            this.i++;
            return o;
          }
          this.fail("expected ',' or '}'");
        }
      }
      case '[': {
        this.i++;
        const a: Value[] = [];
        this.ws();
        if (s[this.i] === ']') {
          this.i++;
          return a;
        }
        for (;;) {
          this.ws();
          a.push(this.value(depth + 1));
          this.ws();
          if (s[this.i] === ',') {
            this.i++;
            continue;
          }
          if (s[this.i] === ']') {
            this.i++;
            return a;
          }
          this.fail("expected ',' or ']'");
        }
      }
      case '"':
        return this.string();
      case 't':
        return this.word('true', true);
      case 'f':
        return this.word('false', false);
      case 'n':
        return this.word('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of input' : `unexpected character '${c}'`);
    }
  }

  private word<T extends Value>(w: string, v: T): T {
    if (this.s.startsWith(w, this.i)) {
      this.i += w.length;
      return v;
    }
    return this.fail('invalid literal');
  }

  private number(): number | bigint | NumLit {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (r === null) return this.fail('invalid number');
    const text = r[0];
    this.i += text.length;
    if (r[1] === undefined && r[2] === undefined) {
      return numberValue(text, normNum(text.length > 15 ? BigInt(text) : Number(text)));
    }
    const n = Number(text);
    if (!Number.isFinite(n)) return this.fail('number out of range', this.i - text.length);
    return numberValue(text, normNum(n));
  }

  string(): string {
    const s = this.s;
    const start = ++this.i;
    // Fast path: no escapes.
    let j = start;
    for (;;) {
      const c = s.charCodeAt(j);
      if (Number.isNaN(c)) this.fail('unterminated string', start - 1);
      if (c === 34) {
        this.i = j + 1;
        return s.slice(start, j);
      }
      if (c === 92) break;
      if (c < 0x20) this.fail('control character in string', j);
      j++;
    }
    let out = s.slice(start, j);
    this.i = j;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (Number.isNaN(c)) this.fail('unterminated string', start - 1);
      if (c === 34) {
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c !== 92) {
        out += s[this.i++];
        continue;
      }
      const e = s[this.i + 1];
      this.i += 2;
      const simple = e === undefined ? undefined : JSON_ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        continue;
      }
      switch (e) {
        case 'u': {
          const h = s.slice(this.i, this.i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('invalid unicode escape');
          out += String.fromCharCode(parseInt(h, 16));
          this.i += 4;
          break;
        }
        default:
          this.fail('invalid escape', this.i - 2);
      }
    }
  }
}
