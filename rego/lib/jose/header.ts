/**
 * The lenient JSON reading that io.jwt.encode_sign_raw applies to its header (lestrrat-go/jwx's
 * jwsbb.HeaderParse over valyala/fastjson): fastjson's acceptance rules and error texts, so that
 * e.g. `e` parses (as a number) and then lacks "alg", while `` fails with "cannot parse empty string".
 */

type FValue =
  | { t: 'object'; kvs: [string, FValue][] }
  | { t: 'array' }
  | { t: 'string'; raw: string }
  | { t: 'number' | 'true' | 'false' | 'null' };

class FastJSONError extends Error {
  constructor(
    message: string,
    readonly tail: string,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 300;

function skipWS(s: string): string {
  let i = 0;
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  return s.slice(i);
}

/** Go's %q of fastjson's startEndString (first and last 20 bytes of long tails). */
function quoteTail(s: string): string {
  const t = s.length <= 40 ? s : `${s.slice(0, 20)}...${s.slice(-20)}`;
  return JSON.stringify(t);
}

function parseRawString(s: string): [string, string] {
  let i = 0;
  for (;;) {
    const q = s.indexOf('"', i);
    if (q < 0) throw new FastJSONError(`missing closing '"'`, s);
    // An odd number of backslashes before the quote escapes it.
    let b = q - 1;
    while (b >= 0 && s[b] === '\\') b--;
    if ((q - b - 1) % 2 === 0) return [s.slice(0, q), s.slice(q + 1)];
    i = q + 1;
  }
}

function unescape(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function parseNumber(s: string): [FValue, string] {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || c === '.' || c === '-' || c === 'e' || c === 'E' || c === '+') continue;
    if (i === 0 || (i === 1 && (s[0] === '-' || s[0] === '+'))) {
      const xs = s.slice(i, i + 3).toLowerCase();
      if (xs === 'inf' || xs === 'nan') return [{ t: 'number' }, s.slice(i + 3)];
      throw new FastJSONError(`cannot parse number: unexpected char: ${JSON.stringify(s[0])}`, s);
    }
    break;
  }
  return [{ t: 'number' }, s.slice(i)];
}

function parseObject(s: string, depth: number): [FValue, string] {
  s = skipWS(s);
  if (s === '') throw new FastJSONError("missing '}'", s);
  if (s[0] === '}') return [{ t: 'object', kvs: [] }, s.slice(1)];
  const kvs: [string, FValue][] = [];
  for (;;) {
    s = skipWS(s);
    if (s[0] !== '"') throw new FastJSONError(`cannot find opening '"" for object key`, s);
    let key: string;
    try {
      [key, s] = parseRawString(s.slice(1));
    } catch (e) {
      throw new FastJSONError(`cannot parse object key: ${(e as Error).message}`, (e as FastJSONError).tail);
    }
    s = skipWS(s);
    if (s[0] !== ':') throw new FastJSONError("missing ':' after object key", s);
    let v: FValue;
    try {
      [v, s] = parseValue(skipWS(s.slice(1)), depth);
    } catch (e) {
      throw new FastJSONError(`cannot parse object value: ${(e as Error).message}`, (e as FastJSONError).tail);
    }
    kvs.push([unescape(key), v]);
    s = skipWS(s);
    if (s === '') throw new FastJSONError('unexpected end of object', s);
    if (s[0] === ',') {
      s = s.slice(1);
      continue;
    }
    if (s[0] === '}') return [{ t: 'object', kvs }, s.slice(1)];
    throw new FastJSONError("missing ',' after object value", s);
  }
}

function parseArray(s: string, depth: number): [FValue, string] {
  s = skipWS(s);
  if (s === '') throw new FastJSONError("missing ']'", s);
  if (s[0] === ']') return [{ t: 'array' }, s.slice(1)];
  for (;;) {
    try {
      [, s] = parseValue(skipWS(s), depth);
    } catch (e) {
      throw new FastJSONError(`cannot parse array value: ${(e as Error).message}`, (e as FastJSONError).tail);
    }
    s = skipWS(s);
    if (s === '') throw new FastJSONError('unexpected end of array', s);
    if (s[0] === ',') {
      s = s.slice(1);
      continue;
    }
    if (s[0] === ']') return [{ t: 'array' }, s.slice(1)];
    throw new FastJSONError("missing ',' after array value", s);
  }
}

function literal(s: string, word: string, t: 'true' | 'false' | 'null'): [FValue, string] {
  if (!s.startsWith(word)) throw new FastJSONError(`unexpected value found: ${JSON.stringify(s)}`, s);
  return [{ t }, s.slice(word.length)];
}

function parseValue(s: string, depth: number): [FValue, string] {
  if (s === '') throw new FastJSONError('cannot parse empty string', s);
  if (++depth > MAX_DEPTH) throw new FastJSONError(`too big depth for the nested JSON; it exceeds ${MAX_DEPTH}`, s);
  const wrap = (what: string, f: () => [FValue, string]): [FValue, string] => {
    try {
      return f();
    } catch (e) {
      throw new FastJSONError(`cannot parse ${what}: ${(e as Error).message}`, (e as FastJSONError).tail);
    }
  };
  switch (s[0]) {
    case '{':
      return wrap('object', () => parseObject(s.slice(1), depth));
    case '[':
      return wrap('array', () => parseArray(s.slice(1), depth));
    case '"':
      return wrap('string', () => {
        const [raw, tail] = parseRawString(s.slice(1));
        return [{ t: 'string', raw }, tail];
      });
    case 't':
      return literal(s, 'true', 'true');
    case 'f':
      return literal(s, 'false', 'false');
    case 'n':
      if (s.startsWith('nan')) return [{ t: 'number' }, s.slice(3)];
      return literal(s, 'null', 'null');
    default:
      return parseNumber(s);
  }
}

export type Header = { ok: true; value: FValue } | { ok: false; error: string };

/** jwsbb.HeaderParse. */
export function parseHeader(text: string): Header {
  const s = skipWS(text);
  let v: FValue;
  let tail: string;
  try {
    [v, tail] = parseValue(s, 0);
  } catch (e) {
    const fe = e as FastJSONError;
    return { ok: false, error: `cannot parse JSON: ${fe.message}; unparsed tail: ${quoteTail(fe.tail)}` };
  }
  tail = skipWS(tail);
  if (tail !== '') return { ok: false, error: `unexpected tail: ${quoteTail(tail)}` };
  return { ok: true, value: v };
}

/** jwsbb.HeaderGetString: the first `key` of a header object, which must be a string. */
export function headerString(h: Header, key: string): { ok: true; value: string } | { ok: false; error: string } {
  if (!h.ok) return h;
  const found = h.value.t === 'object' ? h.value.kvs.find(([k]) => k === key) : undefined;
  if (!found) return { ok: false, error: `jwsbb: header "${key}" not found` };
  const v = found[1];
  if (v.t !== 'string') return { ok: false, error: `value doesn't contain string; it contains ${v.t}` };
  return { ok: true, value: unescape(v.raw) };
}
