/**
 * uri.parse and uri.is_valid (OPA v1/topdown/uri.go, new in OPA 1.20) over Go's net/url.Parse
 * (lib/gourl): the parts of the URL OPA reports, empty ones left out.
 */
import { T } from '../../types.js';
import { RObject, type Value } from '../../value.js';
import { URLParseError, parseURL, splitHostPort } from '../../lib/gourl/index.js';
import { str } from '../args.js';
import { libraryCall } from '../lib-errors.js';
import type { BuiltinImpl, BuiltinRegistry } from '../registry.js';

const decls = {
  'uri.parse': { args: [T.string], result: T.object(T.string, T.string) },
  'uri.is_valid': { args: [T.string], result: T.boolean },
};

const uriParse: BuiltinImpl = (args) => {
  const raw = str(args, 0);
  const u = libraryCall([URLParseError], () => parseURL(raw));
  const [hostname, port] = splitHostPort(u.host);
  const out = new RObject();
  const put = (k: string, v: string): void => {
    if (v !== '') out.set(k, v);
  };
  put('scheme', u.scheme);
  put('hostname', hostname);
  put('port', port);
  if (u.path !== '') {
    out.set('path', u.path);
    out.set('raw_path', u.rawPath);
  }
  put('raw_query', u.rawQuery);
  put('fragment', u.fragment);
  return out;
};

// Non-strings and "" are simply not valid (no type error), as in OPA.
const uriIsValid: BuiltinImpl = (args): Value => {
  const s = args[0];
  if (typeof s !== 'string' || s === '') return false;
  try {
    parseURL(s);
    return true;
  } catch (e) {
    if (e instanceof URLParseError) return false;
    throw e;
  }
};

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'uri.parse', ...decls['uri.parse'] }, uriParse);
  r.add({ name: 'uri.is_valid', ...decls['uri.is_valid'] }, uriIsValid);
}
