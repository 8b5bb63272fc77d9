import { Ajv, type ValidateFunction } from 'ajv';
import type { z } from 'zod';
import { outputJsonSchema } from './serializer.js';

/**
 * A compiled check of request bodies that zod would return unchanged: a body it accepts is valid, and zod's
 * parse of it equals the body itself. Hot routes call it first and run zod only for the bodies it refuses (to
 * produce zod's error, or zod's output when zod would change the body: an unknown key that a non-passthrough
 * object strips). The zod schema in api/http stays the one source of the shape: the check is compiled by ajv
 * from its JSON Schema, and only for schemas whose every part JSON Schema states exactly (see `exact`).
 * Measured on the pre-check body: 0.05 µs against zod's 0.75, 0.4 against 3.2 with the CPU caches cold
 * (docs/benchmarks.md).
 */
export type BodyCheck = (body: unknown) => boolean;

// NB: strict mode off: zod's JSON Schema carries keywords ajv's strict mode rejects. No coercion, no defaults,
// no removal: ajv only answers yes or no.
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, unicodeRegExp: true });
const compiled = new WeakMap<z.ZodType, BodyCheck | null>();

/** The compiled check of a schema, or undefined when zod must check every body (see `exact`). */
export function bodyCheck(schema: z.ZodType): BodyCheck | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = exact(schema) ? compile(schema) : null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

/** The check, or null when JSON Schema cannot state the schema after all (zod then checks every body). */
function compile(schema: z.ZodType): BodyCheck | null {
  let validate: ValidateFunction;
  try {
    // NB: output, not input: a body with a key that a non-passthrough object strips fails the check (goes to zod).
    validate = ajv.compile(outputJsonSchema(schema, 'throw'));
  } catch {
    return null;
  }
  return (body) => validate(body) as boolean;
}

/** Length checks: zod counts a string's code points, as ajv does (and an array's items). */
const LENGTH_CHECKS = new Set(['min_length', 'max_length', 'length_equals']);
const NUMBER_CHECKS = new Set(['greater_than', 'less_than', 'number_format']);

interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; format?: string; pattern?: RegExp } } }[];
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

/**
 * Whether zod's parse of any body the JSON Schema accepts is that same body: no transforms, defaults,
 * refinements or formats (JSON Schema drops them or states them differently).
 */
function exact(schema: z.ZodType, seen = new Set<z.ZodType>()): boolean {
  // NB: a recursive schema (api/http/safe.ts jsonValue) is exact when its parts are; a part met again is
  // being judged further up.
  if (seen.has(schema)) return true;
  seen.add(schema);
  const def = defOf(schema);
  const checks = def.checks ?? [];
  const sub = (s: z.ZodType) => exact(s, seen);
  switch (def.type) {
    case 'string':
      return checks.every((c) => LENGTH_CHECKS.has(c._zod.def.check) || unicodePattern(c));
    case 'number':
      return checks.every((c) => NUMBER_CHECKS.has(c._zod.def.check));
    case 'boolean':
    case 'null':
    case 'literal':
    case 'enum':
    case 'unknown':
    case 'any':
      return checks.length === 0;
    case 'optional':
    case 'nullable':
      return sub(def.innerType!);
    case 'lazy':
      return sub(def.getter!());
    case 'array':
      return checks.every((c) => LENGTH_CHECKS.has(c._zod.def.check)) && sub(def.element!);
    case 'record':
      return sub(def.keyType!) && sub(def.valueType!);
    case 'object':
      return (
        checks.length === 0 &&
        Object.values(def.shape!).every(sub) &&
        (def.catchall === undefined || sub(def.catchall) || defOf(def.catchall).type === 'never')
      );
    case 'union':
      return checks.length === 0 && def.options!.every(sub);
    default:
      return false;
  }
}

/**
 * A regex check that JSON Schema's `pattern` states exactly: ajv compiles patterns with the `u` flag
 * (`unicodeRegExp`, its default), so only a `u`-flagged regex without other flags means the same to both.
 */
function unicodePattern(c: { _zod: { def: { check: string; format?: string; pattern?: RegExp } } }): boolean {
  const d = c._zod.def;
  return d.check === 'string_format' && d.format === 'regex' && d.pattern?.flags === 'u';
}

/** A schema's definition (zod 4's internals: the kind, its checks and its parts). */
function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}
