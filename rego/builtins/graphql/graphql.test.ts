import { describe, expect, it } from 'vitest';
import { BuiltinError } from '../../errors.js';
import { toJS, type Value } from '../../value.js';
import { register } from './graphql.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };

function call(name: string, ...args: Value[]): Value | undefined {
  return registry.get(name)!.impl(args, ctx);
}

const SCHEMA = `
  type Query {
    hero(episode: Episode): Character
    search(text: String!): [SearchResult]
  }
  enum Episode { NEWHOPE EMPIRE JEDI }
  interface Character { id: ID! name: String! friends: [Character] }
  type Human implements Character { id: ID! name: String! friends: [Character] height: Float }
  type Droid implements Character { id: ID! name: String! friends: [Character] primaryFunction: String }
  union SearchResult = Human | Droid
`;

describe('graphql.parse_query', () => {
  it('returns gqlparser AST objects with zero values kept and positions dropped', () => {
    expect(toJS(call('graphql.parse_query', 'query Q($e: Episode = JEDI) { hero(episode: $e) { name } }')!)).toEqual({
      Operations: [
        {
          Name: 'Q',
          Operation: 'query',
          SelectionSet: [
            {
              Alias: 'hero',
              Arguments: [{ Name: 'episode', Value: { ExpectedTypeHasDefault: false, Kind: 0, Raw: 'e' } }],
              Name: 'hero',
              SelectionSet: [{ Alias: 'name', Name: 'name' }],
            },
          ],
          VariableDefinitions: [
            {
              DefaultValue: { ExpectedTypeHasDefault: false, Kind: 7, Raw: 'JEDI' },
              Type: { NamedType: 'Episode', NonNull: false },
              Used: false,
              Variable: 'e',
            },
          ],
        },
      ],
    });
  });

  it.each([
    { name: 'an unclosed brace', query: '{', message: 'Expected Name, found <EOF> in GraphQL string at location 1:2' },
    {
      name: 'a fragment named on',
      query: 'fragment on on on { on }',
      message: 'Unexpected Name "on" in GraphQL string at location 1:10',
    },
    {
      name: 'a variable in a default value',
      query: 'query Foo($x: Complex = { a: { b: [ $var ] } }) { field }',
      message: 'Unexpected $ in GraphQL string at location 1:37',
    },
    // gqlparser reports the lexer's invalid token when the parser peeks at it, not the lexer's message.
    {
      name: 'an unterminated string',
      query: '{ f(a: "x) }',
      message: 'Unexpected <Invalid> in GraphQL string at location 1:13',
    },
  ])('reports $name with its location', ({ query, message }) => {
    expect(() => call('graphql.parse_query', query)).toThrow(BuiltinError);
    expect(() => call('graphql.parse_query', query)).toThrow(message);
  });

  it("reports the lexer's own message when the parser consumes a bad token", () => {
    expect(() => call('graphql.parse_schema', 'schema { "\\q": Q }')).toThrow(
      'Invalid character escape sequence: \\q. in GraphQL string at location 1:12',
    );
  });

  it('dedents block strings', () => {
    const ast = toJS(call('graphql.parse_query', '{ f(s: """\n    a\n      b\n    """) }')!) as {
      Operations: { SelectionSet: { Arguments: { Value: { Raw: string } }[] }[] }[];
    };
    expect(ast.Operations[0]!.SelectionSet[0]!.Arguments[0]!.Value.Raw).toBe('a\n  b');
  });

  it('refuses absurdly deep nesting instead of overflowing the stack', () => {
    const q = `${'{a'.repeat(2000)}${'}'.repeat(2000)}`;
    expect(() => call('graphql.parse_query', q)).toThrow('nesting deeper than 500 levels');
  });
});

describe('graphql.parse_schema and schema_is_valid', () => {
  it('parses definitions with descriptions and list types', () => {
    expect(toJS(call('graphql.parse_schema', '"D" type T { f(a: [Int!]): String }')!)).toEqual({
      Definitions: [
        {
          BuiltIn: false,
          Description: 'D',
          Fields: [
            {
              Arguments: [
                {
                  Description: '',
                  Name: 'a',
                  Type: { Elem: { NamedType: 'Int', NonNull: true }, NamedType: '', NonNull: false },
                },
              ],
              Description: '',
              Name: 'f',
              Type: { NamedType: 'String', NonNull: false },
            },
          ],
          Kind: 'OBJECT',
          Name: 'T',
        },
      ],
    });
  });

  it.each([
    { name: 'accepts a schema with interfaces and unions', schema: SCHEMA, want: true },
    { name: 'accepts extensions of undefined types', schema: 'extend type Query { a: Int }', want: true },
    { name: 'rejects undefined field types', schema: 'type Query { a: Nope }', want: false },
    { name: 'rejects union members that are not objects', schema: 'union U = Int', want: false },
    { name: 'rejects objects in input fields', schema: 'type O { a: Int } input I { o: O }', want: false },
    {
      name: 'rejects missing transitive interfaces',
      schema: 'interface A { id: ID } interface B implements A { id: ID } type C implements B { id: ID }',
      want: false,
    },
    {
      name: 'rejects directives in the wrong place',
      schema: 'type Query { a: Int } enum E @deprecated { X }',
      want: false,
    },
    { name: 'rejects kind-changing extensions', schema: 'scalar S extend type S @deprecated', want: false },
    { name: 'answers false for unparsable schemas', schema: 'type {', want: false },
    { name: 'answers false for non-string, non-object schemas', schema: 5, want: false },
  ])('$name', ({ schema, want }) => {
    expect(call('graphql.schema_is_valid', schema)).toBe(want);
  });
});

describe('graphql.is_valid, parse and parse_and_verify', () => {
  it.each([
    { name: 'accepts a valid query with fragments', query: '{ hero { name ... on Human { height } } }', want: true },
    { name: 'rejects unknown fields', query: '{ hero { nam } }', want: false },
    { name: 'rejects missing required arguments', query: '{ search { ... on Human { id } } }', want: false },
    { name: 'rejects leaf fields without selections on objects', query: '{ hero }', want: false },
    { name: 'rejects wrong enum values', query: '{ hero(episode: PHANTOM) { id } }', want: false },
    { name: 'rejects undefined variables', query: 'query Q { hero(episode: $e) { id } }', want: false },
    { name: 'rejects unused variables', query: 'query Q($e: Episode) { hero { id } }', want: false },
    { name: 'rejects conflicting aliases', query: '{ hero { x: id x: name } }', want: false },
    {
      name: 'rejects impossible fragment spreads',
      query: '{ hero { ... on SearchResult { __typename } } }',
      want: true,
    },
    { name: 'rejects unknown directives', query: '{ hero @nope { id } }', want: false },
  ])('$name', ({ query, want }) => {
    expect(call('graphql.is_valid', query, SCHEMA)).toBe(want);
  });

  it('reports the first validation error with its location', () => {
    // NB: OPA trims only a final ".\n" from gqlparser's error list, so "?\n" keeps its newline.
    expect(() => call('graphql.parse', '{\n  hero { nam }\n}', SCHEMA)).toThrow(
      'Cannot query field "nam" on type "Character". Did you mean "name"?\n in GraphQL string at location 2:10',
    );
    expect(() => call('graphql.parse', '{ hero(episode: JEDI, episode: EMPIRE) { id } }', SCHEMA)).toThrow(
      'There can be only one argument named "episode" in GraphQL string at location 1:3',
    );
  });

  it('round-trips AST objects', () => {
    const q = call('graphql.parse_query', '{ hero(episode: EMPIRE) { name } }')!;
    const s = call('graphql.parse_schema', SCHEMA)!;
    expect(toJS(call('graphql.parse', q, s)!)).toEqual(toJS([q, s]));
    expect(toJS(call('graphql.parse_and_verify', q, s)!)).toEqual(toJS([true, q, s]));
  });

  it('answers [false, {}, {}] from parse_and_verify on invalid input', () => {
    expect(toJS(call('graphql.parse_and_verify', '{ nope }', SCHEMA)!)).toEqual([false, {}, {}]);
  });
});
