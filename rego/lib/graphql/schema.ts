/**
 * Schema building and validation as gqlparser's validator.ValidateSchemaDocument does it, after
 * OPA merges the GraphQL prelude (built-in scalars, directives and introspection types) into the
 * user's schema document. The rules for each definition are in schema-rules.ts.
 */
import {
  namedType,
  type GDefinition,
  type GDirectiveDefinition,
  type GFieldDefinition,
  type GSchemaDocument,
} from './ast.js';
import type { Pos } from './lexer.js';
import { GqlError } from './parser.js';
import { withPrelude } from './prelude.js';
import { validateArgs, validateDefinition, validateDirectives, validateName } from './schema-rules.js';

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

function addPossible(s: GSchema, name: string, def: GDefinition | undefined): void {
  if (def === undefined) return;
  const list = s.possibleTypes.get(name);
  if (list) list.push(def);
  else s.possibleTypes.set(name, [def]);
}

/** Merges the prelude into doc and validates the result (ValidateSchemaDocument). */
export function buildSchema(userDoc: GSchemaDocument): GSchema {
  const doc = withPrelude(userDoc);
  const s: GSchema = {
    types: new Map(),
    directives: new Map(),
    possibleTypes: new Map(),
    query: undefined,
    mutation: undefined,
    subscription: undefined,
  };
  const defs = addTypes(s, doc);
  addPossibleTypes(s, defs);
  addDirectives(s, doc);
  addRoots(s, doc);
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
  if (s.query !== undefined) s.query.Fields = [...s.query.Fields, ...INTROSPECTION_FIELDS()];
  return s;
}

/** Every definition by name, extensions merged in; returns the definitions in document order. */
function addTypes(s: GSchema, doc: GSchemaDocument): GDefinition[] {
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
  return defs;
}

/** The types each union, interface or object stands for (Schema.PossibleTypes). */
function addPossibleTypes(s: GSchema, defs: readonly GDefinition[]): void {
  for (const def of defs) {
    if (def.Kind === 'UNION') for (const t of def.Types) addPossible(s, def.Name, s.types.get(t));
    else if (def.Kind === 'INPUT_OBJECT' || def.Kind === 'OBJECT' || def.Kind === 'INTERFACE') {
      for (const intf of def.Interfaces) addPossible(s, intf, def);
      if (def.Kind !== 'INTERFACE') addPossible(s, def.Name, def);
    }
  }
}

/** Directive definitions; redeclaring one is an error unless it is built in. */
function addDirectives(s: GSchema, doc: GSchemaDocument): void {
  for (const dir of doc.Directives) {
    if (s.directives.has(dir.Name) && !BUILTIN_DIRECTIVES.has(dir.Name))
      throw err(dir.Position, `Cannot redeclare directive ${dir.Name}.`);
    if (!s.directives.has(dir.Name)) s.directives.set(dir.Name, dir);
  }
}

/** The root operation types named by the schema definition and its extensions. */
function addRoots(s: GSchema, doc: GSchemaDocument): void {
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
}

/** The introspection fields every query root gets (a fresh copy each time: validation mutates fields). */
const INTROSPECTION_FIELDS = (): GFieldDefinition[] => [
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
