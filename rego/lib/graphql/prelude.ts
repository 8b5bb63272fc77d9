/**
 * The GraphQL prelude OPA merges into every schema document: built-in scalars and directives and the
 * introspection types, as gqlparser's validator/prelude.graphql declares them.
 */
import type { GSchemaDocument } from './ast.js';
import { parseSchema } from './parser.js';

const PRELUDE = `
scalar Int
scalar Float
scalar String
scalar Boolean
scalar ID
directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
directive @specifiedBy(url: String!) on SCALAR
directive @defer(if: Boolean = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @oneOf on INPUT_OBJECT
type __Schema {
  description: String
  types: [__Type!]!
  queryType: __Type!
  mutationType: __Type
  subscriptionType: __Type
  directives: [__Directive!]!
}
type __Type {
  kind: __TypeKind!
  name: String
  description: String
  fields(includeDeprecated: Boolean = false): [__Field!]
  interfaces: [__Type!]
  possibleTypes: [__Type!]
  enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
  inputFields: [__InputValue!]
  ofType: __Type
  specifiedByURL: String
}
type __Field {
  name: String!
  description: String
  args: [__InputValue!]!
  type: __Type!
  isDeprecated: Boolean!
  deprecationReason: String
}
type __InputValue {
  name: String!
  description: String
  type: __Type!
  defaultValue: String
}
type __EnumValue {
  name: String!
  description: String
  isDeprecated: Boolean!
  deprecationReason: String
}
enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }
type __Directive {
  name: String!
  description: String
  locations: [__DirectiveLocation!]!
  args: [__InputValue!]!
  isRepeatable: Boolean!
}
enum __DirectiveLocation {
  QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT VARIABLE_DEFINITION
  SCHEMA SCALAR OBJECT FIELD_DEFINITION ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT
  INPUT_FIELD_DEFINITION
}
`;

let preludeDoc: GSchemaDocument | undefined;

/** A fresh copy of the prelude (validation mutates definitions, so each schema gets its own). */
function prelude(): GSchemaDocument {
  preludeDoc ??= parseSchema(PRELUDE, true);
  return structuredClone(preludeDoc);
}

/** The user's document with the prelude's definitions before its own. */
export function withPrelude(userDoc: GSchemaDocument): GSchemaDocument {
  const pre = prelude();
  return {
    Schema: [...pre.Schema, ...userDoc.Schema],
    SchemaExtension: [...pre.SchemaExtension, ...userDoc.SchemaExtension],
    Directives: [...pre.Directives, ...userDoc.Directives],
    Definitions: [...pre.Definitions, ...userDoc.Definitions],
    Extensions: [...pre.Extensions, ...userDoc.Extensions],
  };
}
