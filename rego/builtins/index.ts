/**
 * The default builtin registry: every family registers itself here. Families are independent
 * modules; the order below only matters for duplicate detection (a name registered twice throws).
 */
import * as aggregates from './aggregates.js';
import * as arrays from './arrays.js';
import * as bits from './bits.js';
import * as comparison from './comparison.js';
import * as crypto from './crypto.js';
import * as encoding from './encoding.js';
import * as glob from './glob.js';
import * as graph from './graph.js';
import * as graphql from './graphql.js';
import * as jsonschema from './jsonschema.js';
import * as jwt from './jwt.js';
import * as net from './net.js';
import * as numbers from './numbers.js';
import * as objects from './objects.js';
import * as providers from './providers.js';
import * as regex from './regex.js';
import { BuiltinRegistry } from './registry.js';
import * as runtime from './runtime.js';
import * as semver from './semver.js';
import * as sets from './sets.js';
import * as sprintf from './sprintf.js';
import * as strings from './strings.js';
import * as time from './time.js';
import * as types from './types.js';
import * as units from './units.js';
import * as unsupported from './unsupported.js';
import * as uri from './uri.js';
import * as uuid from './uuid.js';
import * as walk from './walk.js';

export { BuiltinRegistry } from './registry.js';
export type { BuiltinDecl, BuiltinImpl, BuiltinContext, Builtin } from './registry.js';

interface Family {
  register?: (r: BuiltinRegistry) => void;
}

// NB: some family files (sprintf.ts) may be helper modules without register(); they are skipped.
const families: readonly Family[] = [
  comparison,
  runtime,
  walk,
  unsupported,
  numbers,
  aggregates,
  arrays,
  sets,
  objects,
  types,
  bits,
  graph,
  encoding,
  units,
  semver,
  uuid,
  jsonschema,
  strings,
  sprintf,
  regex,
  glob,
  graphql,
  time,
  crypto,
  jwt,
  net,
  providers,
  uri,
];

/** A fresh registry holding every builtin family. */
export function createRegistry(): BuiltinRegistry {
  const r = new BuiltinRegistry();
  for (const f of families) f.register?.(r);
  return r;
}

let shared: BuiltinRegistry | undefined;

/** The process-wide default registry (built once; treat as read-only — use clone() to extend). */
export function defaultRegistry(): BuiltinRegistry {
  return (shared ??= createRegistry());
}
