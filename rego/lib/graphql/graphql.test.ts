import { describe, expect, it } from 'vitest';
import { GqlError, buildSchema, parseQuery, parseSchema, validateQuery } from './index.js';

// Messages are gqlparser's (`input:<line>:<column>: <message>`).
const schema = buildSchema(
  parseSchema('type Query { hero(id: ID!): Hero } type Hero { name: String friends: [Hero] }'),
);

describe('validateQuery', () => {
  it.each([
    { name: 'accepts a valid query', query: '{ hero(id: "1") { name } }', want: [] },
    {
      name: 'requires non-null arguments',
      query: '{ hero { name } }',
      want: ['input:1:3: Field "hero" argument "id" of type "ID!" is required, but it was not provided.'],
    },
    {
      name: 'suggests a field for a misspelt one',
      query: '{ hero(id: 1) { nam } }',
      want: ['input:1:17: Cannot query field "nam" on type "Hero". Did you mean "name"?'],
    },
    {
      name: 'checks variable types against their position',
      query: 'query($x: Int) { hero(id: $x) { name } }',
      want: ['input:1:27: Variable "$x" of type "Int" used in position expecting type "ID!".'],
    },
  ])('$name', ({ query, want }) => {
    expect(validateQuery(schema, parseQuery(query)).map((e) => e.message)).toEqual(want);
  });
});

describe('parsing and schema building', () => {
  it('reports the first parse error at its position', () => {
    expect(() => parseQuery('{ hero(')).toThrow(GqlError);
    expect(() => parseQuery('{ hero(')).toThrow('input:1:8: Expected Name, found <EOF>');
  });

  it('rejects references to undefined types', () => {
    expect(() => buildSchema(parseSchema('type Query { a: Nope }'))).toThrow('input:1:17: Undefined type Nope.');
  });

  it('keeps operation names and adds introspection fields to the query root', () => {
    expect(parseQuery('query Q { a }').Operations[0]!.Name).toBe('Q');
    expect(schema.query!.Fields.map((f) => f.Name)).toEqual(['hero', '__schema', '__type']);
  });
});
