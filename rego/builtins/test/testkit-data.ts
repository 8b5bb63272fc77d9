/**
 * Test kit for the DATA builtin families: a registry holding only those families and a caller
 * that reports a result as JSON text, undefined, or the thrown error's kind and message.
 */
import { BuiltinError, OperandError } from '../../errors.js';
import { RObject, RSet, fromJS, toJSONText, type Value } from '../../value.js';
import * as aggregates from '../collections/aggregates.js';
import * as arrays from '../collections/arrays.js';
import * as bits from '../numbers/bits.js';
import * as encoding from '../encoding/encoding.js';
import * as yaml from '../encoding/yaml.js';
import * as graph from '../collections/graph.js';
import * as jsonschema from '../jsonschema/jsonschema.js';
import * as numbers from '../numbers/numbers.js';
import * as jsonPaths from '../objects/json-paths.js';
import * as jsonPatch from '../objects/json-patch.js';
import * as objects from '../objects/objects.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';
import * as semver from '../semver/semver.js';
import * as sets from '../collections/sets.js';
import * as types from '../types/types.js';
import * as units from '../numbers/units.js';
import * as uuid from '../uuid/uuid.js';

export const registry = new BuiltinRegistry();
for (const f of [
  numbers,
  aggregates,
  arrays,
  sets,
  objects,
  jsonPaths,
  jsonPatch,
  types,
  bits,
  graph,
  encoding,
  yaml,
  units,
  semver,
  uuid,
  jsonschema,
]) {
  f.register(registry);
}

export function context(cache = new Map<string, unknown>()): BuiltinContext {
  return { strict: true, nowNs: () => 0n, cache, checkDeadline: () => {}, charge: () => {} };
}

/** `type:`/`builtin:` prefixed error text, `undefined`, or the result as JSON text. */
export function run(name: string, args: readonly Value[], ctx = context()): string {
  const b = registry.get(name);
  if (b === undefined) throw new Error(`builtin ${name} is not registered`);
  try {
    const v = b.impl(args, ctx);
    return v === undefined ? 'undefined' : toJSONText(v);
  } catch (e) {
    if (e instanceof OperandError) return `type: ${e.message}`;
    if (e instanceof BuiltinError) return `builtin: ${e.message}`;
    throw e;
  }
}

/** JSON-ish JS to a Rego value; `set(...)` marks sets. */
export const v = (x: unknown): Value => fromJS(x);
export const set = (...xs: unknown[]): RSet => RSet.from(xs.map(fromJS));
export const obj = (entries: [unknown, unknown][]): RObject =>
  RObject.from(entries.map(([k, x]) => [fromJS(k), fromJS(x)]));
