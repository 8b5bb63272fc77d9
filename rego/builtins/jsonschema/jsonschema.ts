/**
 * json.verify_schema and json.match_schema (OPA's topdown/jsonschema.go over gojsonschema): a schema
 * or document is a JSON string or an object/array; results are [ok, error text] and
 * [matches, [{error, type, field, desc}]] as OPA produces them. The schema semantics are in
 * lib/jsonschema.
 */
import { BuiltinError } from '../../errors.js';
import { T } from '../../types.js';
import { RObject, keyOf, type Value } from '../../value.js';
import * as A from '../args.js';
import { GoJSONError, unmarshalJSON, validJSON } from '../../lib/gojson/index.js';
import { libraryCall } from '../lib-errors.js';
import { SchemaError, compileSchema, toJSONDoc, validateDocument, type SubSchema } from '../../lib/jsonschema/index.js';
import type { BuiltinContext, BuiltinRegistry } from '../registry.js';

/** Why a schema or document argument cannot be loaded (OPA's astValueToJSONSchemaLoader). */
class LoadError extends Error {}

/** The JSON document gojsonschema would load from a Rego value. */
function load(v: Value): Value {
  if (typeof v === 'string') {
    if (!validJSON(v)) throw new LoadError('invalid JSON string');
    return toJSONDoc(libraryCall([GoJSONError], () => unmarshalJSON(v)));
  }
  if (v instanceof RObject || Array.isArray(v)) return toJSONDoc(v);
  throw new LoadError('wrong type, expected string or object');
}

function verifyImpl(args: readonly Value[]): Value {
  try {
    compileSchema(load(A.any(args, 0)));
    return [true, null];
  } catch (e) {
    if (e instanceof LoadError || e instanceof SchemaError) return [false, `jsonschema: ${e.message}`];
    throw e;
  }
}

/** Compiled schemas are memoised per evaluation, keyed by the schema value. */
function compiled(schemaArg: Value, ctx: BuiltinContext): SubSchema {
  const key = `json.match_schema:${keyOf(schemaArg)}`;
  const hit = ctx.cache.get(key);
  if (hit !== undefined) return hit as SubSchema;
  const s = compileSchema(load(schemaArg));
  ctx.cache.set(key, s);
  return s;
}

function matchImpl(args: readonly Value[], ctx: BuiltinContext): Value {
  try {
    const doc = load(A.any(args, 0));
    const schema = compiled(A.any(args, 1), ctx);
    const errors = validateDocument(schema, doc, () => ctx.checkDeadline()).map((e) =>
      RObject.from([
        ['error', `${e.field}: ${e.description}`],
        ['type', e.type],
        ['field', e.field],
        ['desc', e.description],
      ]),
    );
    return [errors.length === 0, errors];
  } catch (e) {
    if (e instanceof LoadError || e instanceof SchemaError) throw new BuiltinError(e.message);
    throw e;
  }
}

const schemaArg = T.anyOf(T.string, T.object());
const violation = T.record({ desc: T.string, error: T.string, field: T.string, type: T.string });

export function register(r: BuiltinRegistry): void {
  r.add(
    { name: 'json.verify_schema', args: [schemaArg], result: T.tuple(T.boolean, T.anyOf(T.null, T.string)) },
    verifyImpl,
  );
  r.add(
    { name: 'json.match_schema', args: [schemaArg, schemaArg], result: T.tuple(T.boolean, T.array(violation)) },
    matchImpl,
  );
}
