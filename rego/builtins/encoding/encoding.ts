/**
 * Encoding builtins (OPA's topdown/encoding.go): base64, base64url and hex over Go's decoders
 * (lib/goencoding), urlquery with net/url's rules, and json.* over Go's encoding/json (lib/gojson);
 * the YAML builtins are in yaml.ts. Strings are handled as their UTF-8 bytes, as Go does.
 */
import { BuiltinError, operandError, operandErrorText } from '../../errors.js';
import { T, type Type } from '../../types.js';
import { RObject, RSet, compareStrings, quoteGo, toRegoText, type Value } from '../../value.js';
import * as A from '../args.js';
import { GoJSONError, marshalJSON, marshalJSONIndent, unmarshalJSON, validJSON } from '../../lib/gojson/index.js';
import { libraryCall } from '../lib-errors.js';
import type { BuiltinImpl, BuiltinRegistry } from '../registry.js';
import { chargeDeep } from '../limits.js';
import { goString } from '../../lib/gostrings/index.js';
import { Base64Error, HexError, decodeHex, decodeStdBase64, decodeURLBase64 } from '../../lib/goencoding/index.js';

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Go's base64 decoding (lib/goencoding), its errors becoming builtin errors. */
const decodeBase64 = (s: string, decode: (s: string) => Uint8Array): Uint8Array =>
  libraryCall([Base64Error], () => decode(s));

function base64UrlDecode(s: string): Value {
  let t = s;
  // RFC 7515 appendix C: restore omitted padding before decoding.
  if (!t.endsWith('=')) {
    switch (utf8(t).length % 4) {
      case 0:
        break;
      case 2:
        t += '==';
        break;
      case 3:
        t += '=';
        break;
      default:
        throw new BuiltinError(`illegal base64url string: ${t}`);
    }
  }
  return goString(decodeBase64(t, decodeURLBase64));
}

// ---------------------------------------------------------------------------------------------
// hex

function hexDecode(s: string): Value {
  return goString(libraryCall([HexError], () => decodeHex(utf8(s))));
}

// ---------------------------------------------------------------------------------------------
// urlquery (net/url's QueryEscape, QueryUnescape, ParseQuery and Values.Encode)

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

export function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8(s)) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && UNRESERVED.test(c)) out += c;
    else if (b === 0x20) out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const isHex = (b: number | undefined): boolean =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/** url.QueryUnescape: "+" is a space; a malformed escape is `invalid URL escape "%zz"`. */
export function queryUnescape(s: string): string {
  const src = utf8(s);
  const out: number[] = [];
  for (let i = 0; i < src.length;) {
    const b = src[i]!;
    if (b === 0x25) {
      if (i + 2 >= src.length || !isHex(src[i + 1]) || !isHex(src[i + 2])) {
        const bad = goString(src.subarray(i, Math.min(i + 3, src.length)));
        throw new BuiltinError(`invalid URL escape ${quoteGo(bad)}`);
      }
      out.push(parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16));
      i += 3;
    } else {
      out.push(b === 0x2b ? 0x20 : b);
      i++;
    }
  }
  return goString(Uint8Array.from(out));
}

/** url.ParseQuery: all pairs are kept; the first error (if any) is reported after parsing. */
function parseQuery(q: string): RObject {
  const params = new Map<string, string[]>();
  let firstErr: BuiltinError | undefined;
  for (const part of q.split('&')) {
    if (part.includes(';')) {
      firstErr ??= new BuiltinError('invalid semicolon separator in query');
      continue;
    }
    if (part === '') continue;
    const eq = part.indexOf('=');
    const [rawK, rawV] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    try {
      const k = queryUnescape(rawK);
      const v = queryUnescape(rawV);
      const list = params.get(k) ?? [];
      list.push(v);
      params.set(k, list);
    } catch (e) {
      if (!(e instanceof BuiltinError)) throw e;
      firstErr ??= e;
    }
  }
  if (firstErr !== undefined) throw firstErr;
  const o = new RObject();
  for (const [k, vs] of params) o.set(k, vs);
  return o;
}

/** urlquery.encode_object: values are strings or arrays/sets of strings; keys sorted as Go does. */
function encodeObject(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  if (!(v instanceof RObject)) throw operandError(1, 'object', v);
  const params = new Map<string, string[]>();
  for (const [k, val] of v.entries()) {
    const key = typeof k === 'string' ? k : marshalJSON(k);
    if (typeof val === 'string') {
      params.set(key, [val]);
      continue;
    }
    const items = Array.isArray(val) ? val : val instanceof RSet ? val.values() : undefined;
    if (items === undefined || items.some((x) => typeof x !== 'string')) {
      throw operandErrorText(1, 'values must be string, array[string], or set[string]');
    }
    params.set(key, [...(params.get(key) ?? []), ...(items as string[])]);
  }
  const keys = [...params.keys()].sort(compareStrings);
  const parts: string[] = [];
  for (const k of keys) for (const x of params.get(k)!) parts.push(`${queryEscape(k)}=${queryEscape(x)}`);
  return parts.join('&');
}

// ---------------------------------------------------------------------------------------------
// json.marshal_with_options

function marshalWithOptions(args: readonly Value[]): Value {
  const x = A.any(args, 0);
  const opts = A.obj(args, 1);
  let indent = '\t';
  let prefix = '';
  let implicit = false;
  let explicit: boolean | undefined;
  opts.keys().forEach((k, idx) => {
    const val = opts.get(k)!;
    if (typeof k !== 'string') {
      const inner = operandError(idx, 'string', k).message;
      throw operandErrorText(2, `failed to stringify key ${toRegoText(k)} at index ${idx}: ${inner}`);
    }
    const asString = (): string => {
      if (typeof val !== 'string') {
        throw operandErrorText(
          2,
          `key ${quoteGo(k)} failed cast to string: ${operandError(idx, 'string', val).message}`,
        );
      }
      return val;
    };
    switch (k) {
      case 'prefix':
        prefix = asString();
        implicit = true;
        break;
      case 'indent':
        indent = asString();
        implicit = true;
        break;
      case 'pretty':
        if (typeof val !== 'boolean') throw operandErrorText(2, `key ${quoteGo(k)} failed cast to bool`);
        explicit = val;
        break;
      default:
        throw operandErrorText(2, `object contained unknown key ${quoteGo(k)}`);
    }
  });
  const pretty = explicit ?? implicit;
  if (!pretty) return marshalJSON(x);
  // json.MarshalIndent leaves the first line unprefixed; OPA adds it.
  return prefix + marshalJSONIndent(x, prefix, indent);
}

const S = T.string;

const impls: Record<string, { args: Type[]; result: Type; impl: BuiltinImpl }> = {
  'base64.encode': { args: [S], result: S, impl: (a) => utf8(A.str(a, 0)).toString('base64') },
  'base64.decode': { args: [S], result: S, impl: (a) => goString(decodeBase64(A.str(a, 0), decodeStdBase64)) },
  'base64.is_valid': {
    args: [S],
    result: T.boolean,
    impl: (a) => {
      const v = A.any(a, 0);
      if (typeof v !== 'string') return false;
      try {
        decodeStdBase64(v);
        return true;
      } catch (e) {
        if (e instanceof Base64Error) return false;
        throw e;
      }
    },
  },
  'base64url.encode': {
    args: [S],
    result: S,
    impl: (a) => utf8(A.str(a, 0)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_'),
  },
  'base64url.encode_no_pad': { args: [S], result: S, impl: (a) => utf8(A.str(a, 0)).toString('base64url') },
  'base64url.decode': { args: [S], result: S, impl: (a) => base64UrlDecode(A.str(a, 0)) },
  'hex.encode': { args: [S], result: S, impl: (a) => utf8(A.str(a, 0)).toString('hex') },
  'hex.decode': { args: [S], result: S, impl: (a) => hexDecode(A.str(a, 0)) },
  'urlquery.encode': { args: [S], result: S, impl: (a) => queryEscape(A.str(a, 0)) },
  'urlquery.decode': { args: [S], result: S, impl: (a) => queryUnescape(A.str(a, 0)) },
  'urlquery.encode_object': {
    args: [T.object(S, T.anyOf(S, T.array(S), T.set(S)))],
    result: S,
    impl: encodeObject,
  },
  'urlquery.decode_object': { args: [S], result: T.object(S, T.array(S)), impl: (a) => parseQuery(A.str(a, 0)) },
  // Encoders measure (and charge) the whole value before writing it.
  'json.marshal': {
    args: [T.any],
    result: S,
    impl: (a, ctx) => {
      chargeDeep(ctx, A.any(a, 0));
      return marshalJSON(A.any(a, 0));
    },
  },
  'json.marshal_with_options': {
    args: [T.any, T.record({ pretty: T.boolean, indent: S, prefix: S }, { key: S, value: T.any })],
    result: S,
    impl: (a, ctx) => {
      chargeDeep(ctx, A.any(a, 0));
      return marshalWithOptions(a);
    },
  },
  'json.unmarshal': {
    args: [S],
    result: T.any,
    impl: (a) => {
      const text = A.str(a, 0);
      return libraryCall([GoJSONError], () => unmarshalJSON(text));
    },
  },
  'json.is_valid': {
    args: [S],
    result: T.boolean,
    impl: (a) => {
      const v = A.any(a, 0);
      return typeof v === 'string' && validJSON(v);
    },
  },
};

export function register(r: BuiltinRegistry): void {
  for (const [name, { args, result, impl }] of Object.entries(impls)) r.add({ name, args, result }, impl);
}
