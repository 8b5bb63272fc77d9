import { describe, expect, it } from 'vitest';
import { fromJS } from '../../value.js';
import { SchemaError, compileSchema, toJSONDoc, validateDocument } from './index.js';

// Types and descriptions are gojsonschema's.
const compile = (schema: unknown) => compileSchema(toJSONDoc(fromJS(schema)));
const schema = compile({
  type: 'object',
  properties: { a: { type: 'integer', minimum: 2 }, b: { enum: ['x', 'y'] } },
  required: ['a'],
});

describe('validateDocument', () => {
  it.each([
    { name: 'accepts a matching document', doc: { a: 3, b: 'x' }, want: [] },
    {
      name: 'reports a missing property and a value outside the enum',
      doc: { b: 'z' },
      want: [
        { type: 'required', field: '(root)', description: 'a is required' },
        { type: 'enum', field: 'b', description: 'b must be one of the following: "x", "y"' },
      ],
    },
    {
      name: 'reports a number that is not an integer',
      doc: { a: 1.5 },
      want: [{ type: 'invalid_type', field: 'a', description: 'Invalid type. Expected: integer, given: number' }],
    },
    {
      name: 'reports a number below the minimum',
      doc: { a: 1 },
      want: [{ type: 'number_gte', field: 'a', description: 'Must be greater than or equal to 2' }],
    },
  ])('$name', ({ doc, want }) => {
    expect(validateDocument(schema, toJSONDoc(fromJS(doc)))).toEqual(want);
  });
});

describe('compileSchema', () => {
  it('rejects unknown types with gojsonschema’s message', () => {
    expect(() => compile({ type: 'nope' })).toThrow(SchemaError);
    expect(() => compile({ type: 'nope' })).toThrow('has a primitive type that is NOT VALID -- given: /nope/');
  });

  it('refuses remote references', () => {
    expect(() => compile({ $ref: 'http://x/y' })).toThrow(
      'remote reference http://x/y cannot be loaded: Rego evaluation performs no network access',
    );
  });
});
