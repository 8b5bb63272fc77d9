import { describe, expect, it } from 'vitest';
import { run, v } from '../test/testkit-data.js';

const schema = { properties: { id: { type: 'integer' } }, required: ['id'] };

/** The `error` texts of a json.match_schema result; scalar documents are passed as JSON text, as OPA requires. */
function errors(doc: unknown, s: unknown): string[] {
  const arg = doc !== null && typeof doc === 'object' ? v(doc) : v(JSON.stringify(doc));
  const out = JSON.parse(run('json.match_schema', [arg, v(s)])) as [boolean, { error: string }[]];
  return out[1].map((e) => e.error);
}

describe('jsonschema', () => {
  it.each([
    { name: 'json.verify_schema accepts a schema object', arg: { type: 'boolean' }, want: '[true,null]' },
    { name: 'json.verify_schema accepts a schema string', arg: '{"type": "string"}', want: '[true,null]' },
    { name: 'json.verify_schema accepts a boolean schema', arg: 'true', want: '[true,null]' },
    {
      name: 'json.verify_schema reports an unknown type',
      arg: { type: 'unknown_type' },
      want: '[false,"jsonschema: has a primitive type that is NOT VALID -- given: /unknown_type/ Expected valid values are:[array boolean integer number null object string]"]',
    },
    { name: 'json.verify_schema reports invalid JSON', arg: '{', want: '[false,"jsonschema: invalid JSON string"]' },
    {
      name: 'json.verify_schema reports a non-object schema',
      arg: '[]',
      want: '[false,"jsonschema: schema is invalid"]',
    },
    {
      name: 'json.verify_schema rejects numbers',
      arg: 1,
      want: '[false,"jsonschema: wrong type, expected string or object"]',
    },
    {
      name: 'json.verify_schema checks counts',
      arg: { minLength: -1 },
      want: '[false,"jsonschema: minLength must be greater than or equal to 0"]',
    },
    { name: 'json.verify_schema checks min against max', arg: { minItems: 2, maxItems: 1 }, want: '[true,null]' },
    {
      name: 'json.verify_schema checks regexes',
      arg: { pattern: '(' },
      want: '[false,"jsonschema: pattern must be a valid regex"]',
    },
    {
      name: 'json.verify_schema resolves local references',
      arg: { $ref: '#/definitions/a', definitions: { a: { type: 'string' } } },
      want: '[true,null]',
    },
    {
      name: 'json.verify_schema reports missing local references',
      arg: { $ref: '#/definitions/zz' },
      want: '[false,"jsonschema: Object has no key \'definitions\'"]',
    },
    {
      name: 'json.verify_schema refuses remote references',
      arg: { $ref: 'http://example.com/s.json' },
      want: '[false,"jsonschema: remote reference http://example.com/s.json cannot be loaded: Rego evaluation performs no network access"]',
    },
  ])('$name', ({ arg, want }) => {
    expect(run('json.verify_schema', [v(arg)])).toBe(want);
  });

  it('json.match_schema accepts a matching document', () => {
    expect(run('json.match_schema', [v({ id: 5 }), v(schema)])).toBe('[true,[]]');
  });

  it('json.match_schema reports an invalid type in OPA’s shape', () => {
    expect(run('json.match_schema', [v({ id: 'foo' }), v(schema)])).toBe(
      '[false,[{"desc":"Invalid type. Expected: integer, given: string","error":"id: Invalid type. Expected: integer, given: string","field":"id","type":"invalid_type"}]]',
    );
  });

  it('json.match_schema takes a string document as JSON text', () => {
    expect(run('json.match_schema', [v('not json'), v({})])).toBe('builtin: invalid JSON string');
    expect(run('json.match_schema', [v(5), v({})])).toBe('builtin: wrong type, expected string or object');
  });

  it('json.match_schema raises a builtin error for an invalid schema', () => {
    expect(run('json.match_schema', [v({}), v({ type: 'x' })])).toMatch(
      /^builtin: has a primitive type that is NOT VALID/,
    );
  });

  it.each([
    { name: 'required properties', doc: {}, s: { required: ['a'] }, want: ['(root): a is required'] },
    {
      name: 'additional properties',
      doc: { a: 1, b: 2 },
      s: { properties: { a: {} }, additionalProperties: false },
      want: ['(root): Additional property b is not allowed'],
    },
    {
      name: 'string lengths in runes',
      doc: 'héé',
      s: { maxLength: 2 },
      want: ['(root): String length must be less than or equal to 2'],
    },
    { name: 'patterns', doc: 'abc', s: { pattern: '^b' }, want: ["(root): Does not match pattern '^b'"] },
    {
      name: 'numeric bounds',
      doc: 11,
      s: { maximum: 10, exclusiveMinimum: 11 },
      want: ['(root): Must be less than or equal to 10', '(root): Must be greater than 11'],
    },
    { name: 'multiples', doc: 0.35, s: { multipleOf: 0.1 }, want: ['(root): Must be a multiple of 0.1'] },
    {
      name: 'draft-4 exclusive bounds',
      doc: 5,
      s: { $schema: 'http://json-schema.org/draft-04/schema#', minimum: 5, exclusiveMinimum: true },
      want: ['(root): Must be greater than 5'],
    },
    { name: 'enums', doc: 'c', s: { enum: ['a', 1] }, want: ['(root): (root) must be one of the following: "a", 1'] },
    { name: 'an empty enum', doc: 'c', s: { enum: [] }, want: ['(root): (root) must be one of the following: (none)'] },
    { name: 'const after a float64 round trip', doc: 1.0, s: { const: 1 }, want: [] },
    {
      name: 'unique items',
      doc: [1, 2, 1],
      s: { uniqueItems: true },
      want: ['(root): array items[0,2] must be unique'],
    },
    {
      name: 'array items by position',
      doc: [1, 'x', 3],
      s: { items: [{ type: 'integer' }, { type: 'integer' }], additionalItems: false },
      want: ['1: Invalid type. Expected: integer, given: string', '(root): No additional items allowed on array'],
    },
    {
      name: 'contains',
      doc: [1, 2],
      s: { contains: { type: 'string' } },
      want: ['(root): At least one of the items must match', '0: Invalid type. Expected: string, given: integer'],
    },
    {
      name: 'anyOf with the closest branch',
      doc: { a: 1 },
      s: { anyOf: [{ type: 'string' }, { required: ['b'] }] },
      want: ['(root): Must validate at least one schema (anyOf)', '(root): b is required'],
    },
    {
      name: 'oneOf matching twice',
      doc: 1,
      s: { oneOf: [{ type: 'integer' }, { type: 'number' }] },
      want: ['(root): Must validate one and only one schema (oneOf)'],
    },
    {
      name: 'allOf',
      doc: 'x',
      s: { allOf: [{ type: 'string' }, { minLength: 2 }] },
      want: [
        '(root): String length must be greater than or equal to 2',
        '(root): Must validate all the schemas (allOf)',
      ],
    },
    { name: 'not', doc: 1, s: { not: { type: 'integer' } }, want: ['(root): Must not validate the schema (not)'] },
    {
      name: 'if/then',
      doc: { a: 1 },
      s: { if: { required: ['a'] }, then: { required: ['b'] } },
      want: ['(root): Must validate "then" as "if" was valid', '(root): b is required'],
    },
    {
      name: 'property dependencies',
      doc: { a: 1 },
      s: { dependencies: { a: ['b'] } },
      want: ['(root): Has a dependency on b'],
    },
    {
      name: 'property names',
      doc: { ab: 1 },
      s: { propertyNames: { maxLength: 1 } },
      want: ['(root): Property name of "ab" does not match', '(root): String length must be less than or equal to 1'],
    },
    {
      name: 'formats',
      doc: ['2021-02-30', 'a@b.c', '1.2.3.4', 'not a uri'],
      s: { items: [{ format: 'date' }, { format: 'email' }, { format: 'ipv4' }, { format: 'uri' }] },
      want: ["0: Does not match format 'date'", "3: Does not match format 'uri'"],
    },
    {
      name: 'false schemas',
      doc: { a: 1 },
      s: { properties: { a: false } },
      want: ['a: False always fails validation'],
    },
    {
      name: 'recursive references',
      doc: { c: { c: { c: 1 } } },
      s: { properties: { c: { $ref: '#' } }, type: 'object' },
      want: ['c.c.c: Invalid type. Expected: object, given: integer'],
    },
  ])('json.match_schema checks $name', ({ doc, s, want }) => {
    expect(errors(doc, s)).toEqual(want);
  });
});
