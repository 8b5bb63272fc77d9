/**
 * JSON Schema as OPA's vendored gojsonschema implements it: drafts 4, 6 and 7 (and the default
 * "hybrid" accepting all), local `$ref`/`$id` resolution (no remote references: Rego evaluation
 * does no I/O), gojsonschema's keyword order, format checks, error types and descriptions, and
 * its compile errors word for word.
 *
 * NB: an exception to lib/ holding no Rego values: schemas and documents are Rego `Value`s in the
 * JSON shape gojsonschema sees after OPA's ast.JSON (toJSONDoc), because number text, object key
 * order and const/enum comparison follow that data model exactly.
 *
 * API: compileSchema(doc, validatePatterns?) → SubSchema (throws SchemaError);
 * validateDocument(schema, doc, onStep?) → SchemaViolation[]; toJSONDoc(value).
 */
export { compileSchema } from './compile.js';
export { SchemaError, type SubSchema } from './schema.js';
export { validateDocument, type SchemaViolation } from './validate.js';
export { toJSONDoc } from './values.js';
