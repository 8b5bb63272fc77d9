/**
 * Inline `# METADATA` schemas type `input` for the type checker: comparing or passing a schema
 * type where it cannot fit is a compile-time `rego_type_error`.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoCompileError, type Diagnostic } from '../errors.js';
import { T, typeString } from '../types.js';
import { schemaToType } from './schematypes.js';

function errorsOf(source: string): Diagnostic[] {
  try {
    compile([{ name: 'policy.rego', source }]);
  } catch (e) {
    if (e instanceof RegoCompileError) return [...e.errors];
    throw e;
  }
  return [];
}

const ruleSchema = (schema: string, rule: string): string =>
  `package t\n\n# METADATA\n# schemas:\n#   - ${schema}\n${rule}\n`;

describe('schema types', () => {
  it.each([
    [{ type: 'string' }, T.string],
    [{ type: 'integer' }, T.number],
    [{ type: ['string', 'null'] }, T.anyOf(T.string, T.null)],
    [{ type: 'array', items: { type: 'number' } }, T.array(T.number)],
    [{ type: 'object', properties: { a: { type: 'boolean' } } }, T.record({ a: T.boolean })],
    [{ type: 'object' }, T.object(T.any, T.any)],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, T.anyOf(T.string, T.number)],
    [{ $ref: '#/definitions/x' }, T.any],
  ])('converts %j', (schema, want) => {
    expect(typeString(schemaToType(schema))).toBe(typeString(want));
  });
});

describe('type errors against input schemas', () => {
  it.each([
    [
      'a number property passed to startswith',
      ruleSchema(
        'input: {"type": "object", "properties": {"user": {"type": "object", "properties": {"age": {"type": "number"}}}}}',
        'allow if startswith(input.user.age, "1")',
      ),
      'startswith: invalid argument(s)',
      6,
      10,
    ],
    [
      'a number path unified with a string',
      ruleSchema('input.user.age: {type: number}', 'allow if input.user.age = "a"'),
      'match error',
      6,
      10,
    ],
    [
      'a boolean counted',
      ruleSchema('input.x: {type: boolean}', 'allow if count(input.x) > 0'),
      'count: invalid argument(s)',
      6,
      10,
    ],
    [
      'array elements of the wrong type',
      ruleSchema('input.tags: {type: array, items: {type: string}}', 'allow if { some t in input.tags; t + 1 > 2 }'),
      'plus: invalid argument(s)',
      6,
      34,
    ],
    [
      'a misspelled property',
      ruleSchema('input: {type: object, properties: {user: {type: string}}}', 'allow if input.usr == "a"'),
      'undefined ref: input.usr',
      6,
      10,
    ],
    [
      'a package-scoped schema',
      '# METADATA\n# scope: package\n# schemas:\n#   - input.n: {type: string}\npackage t\n\nallow if abs(input.n) > 1\n',
      'abs: invalid argument(s)',
      7,
      10,
    ],
  ])('reports %s', (_name, source, message, row, col) => {
    const errs = errorsOf(source);
    expect(errs.map((d) => [d.code, d.message, d.row, d.col])).toEqual([['rego_type_error', message, row, col]]);
  });

  it.each([
    [
      'a path the schema does not describe',
      ruleSchema('input.user.age: {type: number}', 'allow if upper(input.user.name)'),
    ],
    ['a schema reference (no schema set is loaded)', ruleSchema('input: schema.foo', 'allow if upper(input.x)')],
    [
      'a rule without the annotation',
      `${ruleSchema('input.x: {type: number}', 'a if input.x > 1')}\nb if upper(input.x)\n`,
    ],
  ])('accepts %s', (_name, source) => {
    expect(errorsOf(source)).toEqual([]);
  });
});
