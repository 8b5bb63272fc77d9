import { z } from 'zod';

/**
 * Building blocks every request schema uses, so that a body the schema accepts can be stored as it is:
 * PostgreSQL refuses NUL in text and jsonb and lone UTF-16 surrogates do not encode, integer columns are 32-bit,
 * and nesting is bounded before any recursive code runs (the JSON body parser refuses deeper bodies first:
 * `MAX_JSON_DEPTH`, runtime/http/json-parser.ts). Each block is stated in JSON Schema exactly, so the compiled
 * body checks (runtime/http/body-validator.ts) keep taking the fast path.
 */

/** How deeply a JSON body may nest (objects and arrays); deeper bodies are refused before they are parsed. */
export const MAX_JSON_DEPTH = 64;

/** The largest value of a PostgreSQL `integer` column. */
export const INT32_MAX = 2_147_483_647;

// NB: the `u` flag makes a well-formed surrogate pair one code point outside the class; ajv compiles the
// JSON Schema `pattern` with `u` as well, so both checks agree.
const SAFE_TEXT = /^[^\u0000\uD800-\uDFFF]*$/u;
const SAFE_TEXT_MESSAGE = 'must not contain NUL (U+0000) or unpaired surrogate characters';

/** A string that PostgreSQL can store: no NUL, no lone surrogate. */
export const safeText = () => z.string().regex(SAFE_TEXT, { message: SAFE_TEXT_MESSAGE });

/** A non-negative whole number that fits a PostgreSQL `integer` column. */
export const int32 = () => z.number().int().min(0).max(INT32_MAX);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Any JSON value whose strings and keys are all `safeText` (finite numbers only, as zod's numbers are). */
export const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([safeText(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(safeText(), jsonValue)]),
);

/** A JSON object of safe keys and `jsonValue`s: request metadata and contexts. */
export const jsonObject = () => z.record(safeText(), jsonValue);

/** Whether a string is safe to store (the same rule as `safeText`), for code outside a schema. */
export function isSafeText(s: string): boolean {
  return SAFE_TEXT.test(s);
}
