/**
 * Schema building and validation as gqlparser's validator.ValidateSchemaDocument does it, after
 * OPA merges the GraphQL prelude (built-in scalars, directives and introspection types) into the
 * user's schema document.
 */
import {
  namedType,
  typeName,
  typeString,
  type GArgumentDefinition,
  type GDefinition,
  type GDirective,
  type GDirectiveDefinition,
  type GSchemaDocument,
  type GType,
} from './graphql-ast.js';
import { GqlError, parseSchema } from './graphql-parser.js';
import type { Pos } from './graphql-lexer.js';

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

export interface GSchema {
  readonly types: Map<string, GDefinition>;
  readonly directives: Map<string, GDirectiveDefinition>;
  readonly possibleTypes: Map<string, GDefinition[]>;
  query: GDefinition | undefined;
  mutation: GDefinition | undefined;
  subscription: GDefinition | undefined;
}

const BUILTIN_DIRECTIVES = new Set(['include', 'skip', 'deprecated', 'specifiedBy', 'defer', 'oneOf']);

function err(pos: Pos | null, msg: string): GqlError {
  return new GqlError(msg, pos);
}

const q = (s: string): string => JSON.stringify(s);

function isInputType(d: GDefinition): boolean {
  return d.Kind === 'SCALAR' || d.Kind === 'ENUM' || d.Kind === 'INPUT_OBJECT';
}

function validateName(pos: Pos | null, name: string): void {
  if (name.startsWith('__'))
    throw err(pos, `Name "${name}" must not begin with "__", which is reserved by GraphQL introspection.`);
}

function validateTypeRef(s: GSchema, t: GType): void {
  if (!s.types.has(typeName(t))) throw err(t.Position, `Undefined type ${typeName(t)}.`);
}

function validateDirectives(
  s: GSchema,
  dirs: readonly GDirective[],
  location: string,
  current?: GDirectiveDefinition,
): void {
  for (const dir of dirs) {
    validateName(dir.Position, dir.Name);
    if (current !== undefined && dir.Name === current.Name)
      throw err(dir.Position, `Directive ${current.Name} cannot refer to itself.`);
    const def = s.directives.get(dir.Name);
    if (def === undefined) throw err(dir.Position, `Undefined directive ${dir.Name}.`);
    if (!def.Locations.includes(location))
      throw err(dir.Position, `Directive ${dir.Name} is not applicable on ${location}.`);
    for (const arg of dir.Arguments) {
      if (!def.Arguments.some((a) => a.Name === arg.Name))
        throw err(arg.Position, `Undefined argument ${arg.Name} for directive ${dir.Name}.`);
    }
    for (const a of def.Arguments) {
      if (a.Type?.NonNull && a.DefaultValue === null) {
        const given = dir.Arguments.find((x) => x.Name === a.Name);
        if (given === undefined || given.Value?.Kind === 6 /* NullValue */) {
          throw err(dir.Position, `Argument ${a.Name} for directive ${dir.Name} cannot be null.`);
        }
      }
    }
  }
}

function validateArgs(s: GSchema, args: readonly GArgumentDefinition[], current?: GDirectiveDefinition): void {
  for (const arg of args) {
    validateName(arg.Position, arg.Name);
    const t = arg.Type!;
    validateTypeRef(s, t);
    const def = s.types.get(typeName(t))!;
    if (!isInputType(def)) {
      throw err(
        arg.Position,
        `cannot use ${typeString(t)} as argument ${arg.Name} because ${def.Kind} is not a valid input type`,
      );
    }
    validateDirectives(s, arg.Directives, 'ARGUMENT_DEFINITION', current);
  }
}

function isCovariant(s: GSchema, required: GType, actual: GType): boolean {
  if (required.NonNull && !actual.NonNull) return false;
  if (required.NamedType !== '') {
    if (required.NamedType === actual.NamedType) return true;
    return (s.possibleTypes.get(required.NamedType) ?? []).some((pt) => pt.Name === actual.NamedType);
  }
  if (required.Elem !== null && actual.Elem === null) return false;
  return isCovariant(s, required.Elem!, actual.Elem!);
}

function sameType(a: GType, b: GType): boolean {
  return typeString(a) === typeString(b);
}

function validateImplements(s: GSchema, def: GDefinition, intfName: string): void {
  const intf = s.types.get(intfName);
  if (intf === undefined) throw err(def.Position, `Undefined type ${q(intfName)}.`);
  if (intf.Kind !== 'INTERFACE') throw err(def.Position, `${q(intfName)} is a non interface type ${intf.Kind}.`);
  for (const required of intf.Fields) {
    const found = def.Fields.find((f) => f.Name === required.Name);
    if (found === undefined)
      throw err(
        def.Position,
        `For ${def.Name} to implement ${intf.Name} it must have a field called ${required.Name}.`,
      );
    if (!isCovariant(s, required.Type!, found.Type!)) {
      throw err(
        found.Position,
        `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have type ${typeString(required.Type!)}.`,
      );
    }
    for (const ra of required.Arguments) {
      const fa = found.Arguments.find((a) => a.Name === ra.Name);
      if (fa === undefined) {
        throw err(
          found.Position,
          `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have the same arguments but it is missing ${ra.Name}.`,
        );
      }
      if (!sameType(ra.Type!, fa.Type!)) {
        throw err(
          fa.Position,
          `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have the same arguments but ${ra.Name} has the wrong type.`,
        );
      }
    }
    for (const fa of found.Arguments) {
      if (!required.Arguments.some((a) => a.Name === fa.Name) && fa.Type!.NonNull && fa.DefaultValue === null) {
        throw err(
          fa.Position,
          `For ${def.Name} to implement ${intf.Name} any additional arguments on ${found.Name} must be optional or have a default value but ${fa.Name} is required.`,
        );
      }
    }
  }
  // Interfaces of the interface must be declared too.
  for (const transitive of intf.Interfaces) {
    if (!def.Interfaces.includes(transitive)) {
      if (transitive === def.Name)
        throw err(
          def.Position,
          `Type ${def.Name} cannot implement ${intfName} because it would create a circular reference.`,
        );
      throw err(
        def.Position,
        `Type ${def.Name} must implement ${transitive} because it is implemented by ${intfName}.`,
      );
    }
  }
}

const OUTPUT_KINDS = ['SCALAR', 'OBJECT', 'INTERFACE', 'UNION', 'ENUM'];
const INPUT_KINDS = ['SCALAR', 'ENUM', 'INPUT_OBJECT'];

function validateDefinition(s: GSchema, def: GDefinition): void {
  for (const field of def.Fields) {
    validateName(field.Position, field.Name);
    validateTypeRef(s, field.Type!);
    validateArgs(s, field.Arguments);
    validateDirectives(
      s,
      field.Directives,
      def.Kind === 'INPUT_OBJECT' ? 'INPUT_FIELD_DEFINITION' : 'FIELD_DEFINITION',
    );
  }
  for (const t of def.Types) {
    const member = s.types.get(t);
    if (member === undefined) throw err(def.Position, `Undefined type ${q(t)}.`);
    if (member.Kind !== 'OBJECT') throw err(def.Position, `${def.Kind} type ${q(t)} must be OBJECT.`);
  }
  for (const intf of def.Interfaces) validateImplements(s, def, intf);
  switch (def.Kind) {
    case 'OBJECT':
    case 'INTERFACE':
      if (def.Fields.length === 0) throw err(def.Position, `${def.Kind} ${def.Name}: must define one or more fields.`);
      for (const field of def.Fields) {
        const t = s.types.get(typeName(field.Type!));
        if (t !== undefined && !OUTPUT_KINDS.includes(t.Kind)) {
          throw err(field.Position, `${t.Kind} ${field.Name}: field must be one of ${OUTPUT_KINDS.join(', ')}.`);
        }
      }
      break;
    case 'ENUM':
      if (def.EnumValues.length === 0)
        throw err(def.Position, `${def.Kind} ${def.Name}: must define one or more unique enum values.`);
      for (const v of def.EnumValues) {
        if (v.Name === 'true' || v.Name === 'false' || v.Name === 'null')
          throw err(def.Position, `${def.Kind} ${def.Name}: non-enum value ${v.Name}.`);
        validateDirectives(s, v.Directives, 'ENUM_VALUE');
      }
      break;
    case 'INPUT_OBJECT':
      if (def.Fields.length === 0)
        throw err(def.Position, `${def.Kind} ${def.Name}: must define one or more input fields.`);
      for (const field of def.Fields) {
        const t = s.types.get(typeName(field.Type!));
        if (t !== undefined && !INPUT_KINDS.includes(t.Kind)) {
          throw err(field.Position, `${t.Kind} ${field.Name}: field must be one of ${INPUT_KINDS.join(', ')}.`);
        }
      }
      break;
  }
  for (let i = 0; i < def.Fields.length; i++) {
    for (let j = i + 1; j < def.Fields.length; j++) {
      if (def.Fields[i]!.Name === def.Fields[j]!.Name) {
        throw err(def.Fields[j]!.Position, `Field ${def.Name}.${def.Fields[j]!.Name} can only be defined once.`);
      }
    }
  }
  if (!def.BuiltIn) validateName(def.Position, def.Name);
  validateDirectives(s, def.Directives, def.Kind);
}

function addPossible(s: GSchema, name: string, def: GDefinition | undefined): void {
  if (def === undefined) return;
  const list = s.possibleTypes.get(name);
  if (list) list.push(def);
  else s.possibleTypes.set(name, [def]);
}

/** Merges the prelude into doc and validates the result (ValidateSchemaDocument). */
export function buildSchema(userDoc: GSchemaDocument): GSchema {
  const pre = prelude();
  const doc: GSchemaDocument = {
    Schema: [...pre.Schema, ...userDoc.Schema],
    SchemaExtension: [...pre.SchemaExtension, ...userDoc.SchemaExtension],
    Directives: [...pre.Directives, ...userDoc.Directives],
    Definitions: [...pre.Definitions, ...userDoc.Definitions],
    Extensions: [...pre.Extensions, ...userDoc.Extensions],
  };
  const s: GSchema = {
    types: new Map(),
    directives: new Map(),
    possibleTypes: new Map(),
    query: undefined,
    mutation: undefined,
    subscription: undefined,
  };
  for (const def of doc.Definitions) {
    if (s.types.has(def.Name)) throw err(def.Position, `Cannot redeclare type ${def.Name}.`);
    s.types.set(def.Name, def);
  }
  const defs = [...doc.Definitions];
  for (const ext of doc.Extensions) {
    let def = s.types.get(ext.Name);
    if (def === undefined) {
      // Extending an undefined type defines it (gqlparser allows this for federation-style schemas).
      def = {
        ...ext,
        Description: '',
        Directives: [],
        Interfaces: [],
        Fields: [],
        Types: [],
        EnumValues: [],
        BuiltIn: false,
      };
      s.types.set(ext.Name, def);
      defs.push(def);
    }
    if (def.Kind !== ext.Kind)
      throw err(
        ext.Position,
        `Cannot extend type ${ext.Name} because the base type is a ${def.Kind}, not ${ext.Kind}.`,
      );
    def.Directives = [...def.Directives, ...ext.Directives];
    def.Interfaces = [...def.Interfaces, ...ext.Interfaces];
    def.Fields = [...def.Fields, ...ext.Fields];
    def.Types = [...def.Types, ...ext.Types];
    def.EnumValues = [...def.EnumValues, ...ext.EnumValues];
  }
  for (const def of defs) {
    if (def.Kind === 'UNION') for (const t of def.Types) addPossible(s, def.Name, s.types.get(t));
    else if (def.Kind === 'INPUT_OBJECT' || def.Kind === 'OBJECT' || def.Kind === 'INTERFACE') {
      for (const intf of def.Interfaces) addPossible(s, intf, def);
      if (def.Kind !== 'INTERFACE') addPossible(s, def.Name, def);
    }
  }
  for (const dir of doc.Directives) {
    if (s.directives.has(dir.Name) && !BUILTIN_DIRECTIVES.has(dir.Name))
      throw err(dir.Position, `Cannot redeclare directive ${dir.Name}.`);
    if (!s.directives.has(dir.Name)) s.directives.set(dir.Name, dir);
  }
  if (doc.Schema.length > 1)
    throw err(doc.Schema[1]!.Position, 'Cannot have multiple schema entry points, consider schema extensions instead.');
  for (const sd of [...doc.Schema, ...doc.SchemaExtension]) {
    for (const entry of sd.OperationTypes) {
      const def = s.types.get(entry.Type);
      if (def === undefined)
        throw err(entry.Position, `Schema root ${entry.Operation} refers to a type ${entry.Type} that does not exist.`);
      if (entry.Operation === 'query') s.query = def;
      else if (entry.Operation === 'mutation') s.mutation = def;
      else s.subscription = def;
    }
    validateDirectives(s, sd.Directives, 'SCHEMA');
  }
  for (const name of [...s.types.keys()].sort()) validateDefinition(s, s.types.get(name)!);
  for (const name of [...s.directives.keys()].sort()) {
    const d = s.directives.get(name)!;
    validateName(d.Position, d.Name);
    validateArgs(s, d.Arguments, d);
  }
  // Root types by name only when there is no schema definition.
  if (doc.Schema.length === 0) {
    s.query ??= s.types.get('Query');
    s.mutation ??= s.types.get('Mutation');
    s.subscription ??= s.types.get('Subscription');
  }
  if (s.query !== undefined) {
    s.query.Fields = [
      ...s.query.Fields,
      {
        Description: '',
        Name: '__schema',
        Arguments: [],
        DefaultValue: null,
        Type: namedType('__Schema', true),
        Directives: [],
        Position: null,
      },
      {
        Description: '',
        Name: '__type',
        Arguments: [
          {
            Description: '',
            Name: 'name',
            DefaultValue: null,
            Type: namedType('String', true),
            Directives: [],
            Position: null,
          },
        ],
        DefaultValue: null,
        Type: namedType('__Type', false),
        Directives: [],
        Position: null,
      },
    ];
  }
  return s;
}
