/**
 * github.com/vektah/gqlparser/v2 as OPA's graphql.* builtins use it: the lexer and parser for query
 * and schema documents, schema building with the GraphQL prelude (validator.ValidateSchemaDocument)
 * and query validation (validator.Validate), with gqlparser's messages and positions. AST nodes are
 * gqlparser's Go structs, field for field (ast.ts).
 *
 * API: parseQuery(src) → GQueryDocument; parseSchema(src) → GSchemaDocument; buildSchema(doc) →
 * GSchema; validateQuery(schema, doc, onStep?) → GqlError[]; failures throw GqlError.
 */
export { ValueKind } from './ast.js';
export type {
  GArgument,
  GArgumentDefinition,
  GDefinition,
  GDirective,
  GDirectiveDefinition,
  GEnumValueDefinition,
  GField,
  GFieldDefinition,
  GFragmentDefinition,
  GFragmentSpread,
  GInlineFragment,
  GOperation,
  GOperationTypeDefinition,
  GQueryDocument,
  GSchemaDefinition,
  GSchemaDocument,
  GSelection,
  GType,
  GValue,
  GVariableDefinition,
} from './ast.js';
export { GqlError, parseQuery, parseSchema } from './parser.js';
export { buildSchema, type GSchema } from './schema.js';
export { validateQuery } from './validate.js';
