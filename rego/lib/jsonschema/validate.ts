/**
 * Validating a document against a compiled schema as gojsonschema does (validation.go): the same
 * keyword order, error types and descriptions, and the same "score" used to pick which branch's
 * errors to report when anyOf/oneOf/contains fail. Object members are visited in sorted key order
 * (Go visits them in map order, which is random).
 */
import { RObject, type Value } from '../../value.js';
import type { SubSchema } from './schema.js';
import { isFormat } from './format.js';
import { canonicalJSON, cmpRational, formatRational, isMultiple, ratOfNumber } from './values.js';

export interface SchemaViolation {
  readonly type: string;
  readonly field: string;
  readonly description: string;
}

class Context {
  constructor(
    readonly head: string,
    readonly tail?: Context,
  ) {}

  toString(): string {
    return this.tail === undefined ? this.head : `${this.tail.toString()}.${this.head}`;
  }

  /** The field name without the root context, e.g. `person.name`. */
  field(): string {
    const s = this.toString();
    return s.startsWith('(root).') ? s.slice('(root).'.length) : s;
  }
}

/** Called every STEP_CHECK schema visits so that pathological schemas respect the deadline. */
let onStep: () => void = () => {};
let steps = 0;
const STEP_CHECK = 1024;

class Result {
  errors: SchemaViolation[] = [];
  score = 0;

  get valid(): boolean {
    return this.errors.length === 0;
  }

  add(type: string, ctx: Context, describe: (field: string) => string): void {
    const field = ctx.field();
    this.errors.push({ type, field, description: describe(field) });
    this.score -= 2;
  }

  merge(other: Result): void {
    this.errors.push(...other.errors);
    this.score += other.score;
  }
}

const isNum = (v: Value): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const isInt = (v: number | bigint): boolean => typeof v === 'bigint' || Number.isInteger(v);

function typesString(types: readonly string[]): string {
  return types.length > 1 ? `[${types.join(',')}]` : (types[0] ?? 'undefined');
}

function sub(s: SubSchema, node: Value, ctx: Context): Result {
  const r = new Result();
  validate(s, node, r, ctx);
  return r;
}

function validate(s: SubSchema, node: Value, r: Result, ctx: Context): void {
  if (++steps % STEP_CHECK === 0) onStep();
  if (s.pass !== undefined) {
    if (!s.pass) r.add('false', ctx, () => 'False always fails validation');
    return;
  }
  if (s.refSchema !== undefined) {
    validate(s.refSchema, node, r, ctx);
    return;
  }
  const given =
    node === null
      ? 'null'
      : isNum(node)
        ? isInt(node)
          ? 'integer'
          : 'number'
        : Array.isArray(node)
          ? 'array'
          : node instanceof RObject
            ? 'object'
            : typeof node === 'boolean'
              ? 'boolean'
              : 'string';
  const accepted =
    s.types.length === 0 || s.types.includes(given) || (given === 'integer' && s.types.includes('number'));
  if (!accepted) {
    const expected = typesString(s.types);
    r.add('invalid_type', ctx, () => `Invalid type. Expected: ${expected}, given: ${given}`);
    return;
  }
  validateSchema(s, node, r, ctx);
  if (isNum(node)) validateNumber(s, node, r, ctx);
  if (Array.isArray(node)) validateArray(s, node, r, ctx);
  if (node instanceof RObject) validateObject(s, node, r, ctx);
  validateCommon(s, node, r, ctx);
  if (typeof node === 'string') validateString(s, node, r, ctx);
  if (node instanceof RObject) {
    for (const p of s.properties) {
      const next = node.get(p.property);
      if (next !== undefined) validate(p, next, r, new Context(p.property, ctx));
    }
  }
  r.score++;
}

/** Closest failing branch: the first with the highest score. */
function best(results: readonly Result[]): Result | undefined {
  let b: Result | undefined;
  for (const x of results) if (b === undefined || x.score > b.score) b = x;
  return b;
}

function validateSchema(s: SubSchema, node: Value, r: Result, ctx: Context): void {
  if (s.anyOf.length > 0) {
    const failed: Result[] = [];
    let ok = false;
    for (const a of s.anyOf) {
      const res = sub(a, node, ctx);
      if (res.valid) {
        ok = true;
        break;
      }
      failed.push(res);
    }
    if (!ok) {
      r.add('number_any_of', ctx, () => 'Must validate at least one schema (anyOf)');
      const b = best(failed);
      if (b !== undefined) r.merge(b);
    }
  }
  if (s.oneOf.length > 0) {
    let passed = 0;
    const failed: Result[] = [];
    for (const o of s.oneOf) {
      const res = sub(o, node, ctx);
      if (res.valid) passed++;
      else if (passed === 0) failed.push(res);
    }
    if (passed !== 1) {
      r.add('number_one_of', ctx, () => 'Must validate one and only one schema (oneOf)');
      if (passed === 0) {
        const b = best(failed);
        if (b !== undefined) r.merge(b);
      }
    }
  }
  if (s.allOf.length > 0) {
    let passed = 0;
    for (const a of s.allOf) {
      const res = sub(a, node, ctx);
      if (res.valid) passed++;
      r.merge(res);
    }
    if (passed !== s.allOf.length) r.add('number_all_of', ctx, () => 'Must validate all the schemas (allOf)');
  }
  if (s.not !== undefined && sub(s.not, node, ctx).valid) {
    r.add('number_not', ctx, () => 'Must not validate the schema (not)');
  }
  if (s.dependencies.size > 0 && node instanceof RObject) {
    for (const k of node.keys()) {
      const dep = s.dependencies.get(k as string);
      if (dep === undefined) continue;
      if (Array.isArray(dep)) {
        for (const d of dep) {
          if (!node.has(d)) r.add('missing_dependency', ctx, () => `Has a dependency on ${d}`);
        }
      } else {
        validate(dep, node, r, ctx);
      }
    }
  }
  if (s.ifSchema !== undefined) {
    const cond = sub(s.ifSchema, node, ctx).valid;
    if (cond && s.thenSchema !== undefined) {
      const res = sub(s.thenSchema, node, ctx);
      if (!res.valid) {
        r.add('condition_then', ctx, () => 'Must validate "then" as "if" was valid');
        r.merge(res);
      }
    }
    if (!cond && s.elseSchema !== undefined) {
      const res = sub(s.elseSchema, node, ctx);
      if (!res.valid) {
        r.add('condition_else', ctx, () => 'Must validate "else" as "if" was not valid');
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateCommon(s: SubSchema, node: Value, r: Result, ctx: Context): void {
  if (s.constValue !== undefined && canonicalJSON(node) !== s.constValue) {
    const allowed = s.constValue;
    r.add('const', ctx, (field) => `${field} does not match: ${allowed}`);
  }
  if (s.enumPresent && !s.enumValues.includes(canonicalJSON(node))) {
    const allowed = s.enumValues.length === 0 ? '(none)' : s.enumValues.join(', ');
    r.add('enum', ctx, (field) => `${field} must be one of the following: ${allowed}`);
  }
  if (s.format !== '' && !isFormat(s.format, node)) {
    const format = s.format;
    r.add('format', ctx, () => `Does not match format '${format}'`);
  }
  r.score++;
}

function validateArray(s: SubSchema, node: readonly Value[], r: Result, ctx: Context): void {
  const n = node.length;
  const item = (i: number): Context => new Context(String(i), ctx);
  if (s.itemsSingle) {
    for (let i = 0; i < n; i++) r.merge(sub(s.items[0]!, node[i]!, item(i)));
  } else if (s.items.length > 0) {
    const k = s.items.length;
    for (let i = 0; i < k && i < n; i++) r.merge(sub(s.items[i]!, node[i]!, item(i)));
    if (k < n) {
      const extra = s.additionalItems;
      if (extra === false) r.add('array_no_additional_items', ctx, () => 'No additional items allowed on array');
      else if (extra !== true) for (let i = k; i < n; i++) r.merge(sub(extra, node[i]!, item(i)));
    }
  }
  if (s.minItems !== undefined && n < s.minItems) {
    const min = s.minItems;
    r.add('array_min_items', ctx, () => `Array must have at least ${min} items`);
  }
  if (s.maxItems !== undefined && n > s.maxItems) {
    const max = s.maxItems;
    r.add('array_max_items', ctx, () => `Array must have at most ${max} items`);
  }
  if (s.uniqueItems) {
    const seen = new Map<string, number>();
    node.forEach((v, j) => {
      const text = canonicalJSON(v);
      const i = seen.get(text);
      if (i !== undefined) r.add('unique', ctx, () => `array items[${i},${j}] must be unique`);
      seen.set(text, j);
    });
  }
  if (s.contains !== undefined) {
    const failed: Result[] = [];
    let ok = false;
    for (let i = 0; i < n; i++) {
      const res = sub(s.contains, node[i]!, item(i));
      if (res.valid) {
        ok = true;
        break;
      }
      failed.push(res);
    }
    if (!ok) {
      r.add('contains', ctx, () => 'At least one of the items must match');
      const b = best(failed);
      if (b !== undefined) r.merge(b);
    }
  }
  r.score++;
}

function validateObject(s: SubSchema, node: RObject, r: Result, ctx: Context): void {
  const n = node.size;
  if (s.minProperties !== undefined && n < s.minProperties) {
    const min = s.minProperties;
    r.add('array_min_properties', ctx, () => `Must have at least ${min} properties`);
  }
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    const max = s.maxProperties;
    r.add('array_max_properties', ctx, () => `Must have at most ${max} properties`);
  }
  for (const req of s.required) {
    if (node.has(req)) r.score++;
    else r.add('required', ctx, () => `${req} is required`);
  }
  for (const [k, v] of node.entries()) {
    const key = k as string;
    const declared = s.properties.some((p) => p.property === key);
    let matched = false;
    for (const pp of s.patternProperties) {
      if (pp.re.test(key)) {
        matched = true;
        r.merge(sub(pp.schema, v, new Context(key, ctx)));
      }
    }
    if (matched) r.score++;
    if (!declared && !matched) {
      const extra = s.additionalProperties;
      if (extra === false)
        r.add('additional_property_not_allowed', ctx, () => `Additional property ${key} is not allowed`);
      else if (extra !== true) r.merge(sub(extra, v, new Context(key, ctx)));
    }
  }
  if (s.propertyNames !== undefined) {
    for (const k of node.keys()) {
      const res = sub(s.propertyNames, k, ctx);
      if (!res.valid) {
        r.add('invalid_property_name', ctx, () => `Property name of "${k as string}" does not match`);
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateString(s: SubSchema, node: string, r: Result, ctx: Context): void {
  let len = 0;
  for (const _ of node) len++;
  if (s.minLength !== undefined && len < s.minLength) {
    const min = s.minLength;
    r.add('string_gte', ctx, () => `String length must be greater than or equal to ${min}`);
  }
  if (s.maxLength !== undefined && len > s.maxLength) {
    const max = s.maxLength;
    r.add('string_lte', ctx, () => `String length must be less than or equal to ${max}`);
  }
  if (s.pattern !== undefined && !s.pattern.re.test(node)) {
    const src = s.pattern.source;
    r.add('pattern', ctx, () => `Does not match pattern '${src}'`);
  }
  r.score++;
}

function validateNumber(s: SubSchema, node: number | bigint, r: Result, ctx: Context): void {
  const v = ratOfNumber(node);
  if (s.multipleOf !== undefined && !isMultiple(v, s.multipleOf)) {
    const m = formatRational(s.multipleOf);
    r.add('multiple_of', ctx, () => `Must be a multiple of ${m}`);
  }
  if (s.maximum !== undefined && cmpRational(v, s.maximum) > 0) {
    const m = formatRational(s.maximum);
    r.add('number_lte', ctx, () => `Must be less than or equal to ${m}`);
  }
  if (s.exclusiveMaximum !== undefined && cmpRational(v, s.exclusiveMaximum) >= 0) {
    const m = formatRational(s.exclusiveMaximum);
    r.add('number_lt', ctx, () => `Must be less than ${m}`);
  }
  if (s.minimum !== undefined && cmpRational(v, s.minimum) < 0) {
    const m = formatRational(s.minimum);
    r.add('number_gte', ctx, () => `Must be greater than or equal to ${m}`);
  }
  if (s.exclusiveMinimum !== undefined && cmpRational(v, s.exclusiveMinimum) <= 0) {
    const m = formatRational(s.exclusiveMinimum);
    r.add('number_gt', ctx, () => `Must be greater than ${m}`);
  }
  r.score++;
}

/**
 * Validates a JSON-shaped document; an empty list means it matches. `checkDeadline` runs
 * periodically and may throw to abandon the validation.
 */
export function validateDocument(
  schema: SubSchema,
  doc: Value,
  checkDeadline: () => void = () => {},
): SchemaViolation[] {
  const r = new Result();
  const saved = onStep;
  onStep = checkDeadline;
  try {
    validate(schema, doc, r, new Context('(root)'));
  } finally {
    onStep = saved;
  }
  return r.errors;
}
