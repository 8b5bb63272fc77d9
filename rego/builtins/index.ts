/**
 * The default builtin registry: every family folder registers itself here. Families are adapters
 * over the libraries in rego/lib (argument checks, Value conversion, library errors as builtin
 * errors); the order below only matters for duplicate detection (a name registered twice throws).
 */
import * as collections from './collections/index.js';
import * as crypto from './crypto/index.js';
import * as encoding from './encoding/index.js';
import * as glob from './glob/index.js';
import * as graphql from './graphql/index.js';
import * as jsonschema from './jsonschema/index.js';
import * as jwt from './jwt/index.js';
import * as net from './net/index.js';
import * as numbers from './numbers/index.js';
import * as objects from './objects/index.js';
import * as providers from './providers/index.js';
import * as regex from './regex/index.js';
import { BuiltinRegistry } from './registry.js';
import * as runtime from './runtime/index.js';
import * as semver from './semver/index.js';
import * as strings from './strings/index.js';
import * as time from './time/index.js';
import * as types from './types/index.js';
import * as uuid from './uuid/index.js';

export { BuiltinRegistry } from './registry.js';
export type { BuiltinDecl, BuiltinImpl, BuiltinContext, Builtin } from './registry.js';

interface Family {
  register(r: BuiltinRegistry): void;
}

const families: readonly Family[] = [
  types,
  runtime,
  numbers,
  collections,
  objects,
  encoding,
  semver,
  uuid,
  jsonschema,
  strings,
  regex,
  glob,
  graphql,
  time,
  crypto,
  jwt,
  net,
  providers,
];

/** A fresh registry holding every builtin family. */
export function createRegistry(): BuiltinRegistry {
  const r = new BuiltinRegistry();
  for (const f of families) f.register(r);
  return r;
}

let shared: BuiltinRegistry | undefined;

/** The process-wide default registry (built once; treat as read-only — use clone() to extend). */
export function defaultRegistry(): BuiltinRegistry {
  return (shared ??= createRegistry());
}
