/**
 * The GraphQL AST as gqlparser's Go structs, field for field: OPA returns these structs as Rego
 * objects (after a JSON round trip that drops `Position`, nulls and empty collections but keeps
 * zero strings, false and 0). Node objects here use the Go field names so that conversion is
 * mechanical; `Position` is kept for error messages and never converted.
 */
import type { Pos } from './lexer.js';

export const enum ValueKind {
  Variable,
  IntValue,
  FloatValue,
  StringValue,
  BlockValue,
  BooleanValue,
  NullValue,
  EnumValue,
  ListValue,
  ObjectValue,
}

export interface GType {
  NamedType: string;
  Elem: GType | null;
  NonNull: boolean;
  Position: Pos | null;
}

export interface GValue {
  Raw: string;
  Children: GChildValue[];
  Kind: ValueKind;
  Position: Pos | null;
  ExpectedTypeHasDefault: boolean;
}

export interface GChildValue {
  Name: string;
  Value: GValue | null;
  Position: Pos | null;
}

export interface GArgument {
  Name: string;
  Value: GValue | null;
  Position: Pos | null;
}

export interface GDirective {
  Name: string;
  Arguments: GArgument[];
  Position: Pos | null;
  Location: string;
}

export interface GField {
  kind: 'field';
  Alias: string;
  Name: string;
  Arguments: GArgument[];
  Directives: GDirective[];
  SelectionSet: GSelection[];
  Position: Pos | null;
}

export interface GFragmentSpread {
  kind: 'spread';
  Name: string;
  Directives: GDirective[];
  Position: Pos | null;
}

export interface GInlineFragment {
  kind: 'inline';
  TypeCondition: string;
  Directives: GDirective[];
  SelectionSet: GSelection[];
  Position: Pos | null;
}

export type GSelection = GField | GFragmentSpread | GInlineFragment;

export interface GVariableDefinition {
  Variable: string;
  Type: GType | null;
  DefaultValue: GValue | null;
  Directives: GDirective[];
  Used: boolean;
  Position: Pos | null;
}

export interface GOperation {
  Operation: string;
  Name: string;
  VariableDefinitions: GVariableDefinition[];
  Directives: GDirective[];
  SelectionSet: GSelection[];
  Position: Pos | null;
}

export interface GFragmentDefinition {
  Name: string;
  VariableDefinition: GVariableDefinition[];
  TypeCondition: string;
  Directives: GDirective[];
  SelectionSet: GSelection[];
  Position: Pos | null;
}

export interface GQueryDocument {
  Operations: GOperation[];
  Fragments: GFragmentDefinition[];
}

export interface GArgumentDefinition {
  Description: string;
  Name: string;
  DefaultValue: GValue | null;
  Type: GType | null;
  Directives: GDirective[];
  Position: Pos | null;
}

export interface GFieldDefinition {
  Description: string;
  Name: string;
  Arguments: GArgumentDefinition[];
  DefaultValue: GValue | null;
  Type: GType | null;
  Directives: GDirective[];
  Position: Pos | null;
}

export interface GEnumValueDefinition {
  Description: string;
  Name: string;
  Directives: GDirective[];
  Position: Pos | null;
}

export interface GDefinition {
  Kind: string;
  Description: string;
  Name: string;
  Directives: GDirective[];
  Interfaces: string[];
  Fields: GFieldDefinition[];
  Types: string[];
  EnumValues: GEnumValueDefinition[];
  Position: Pos | null;
  BuiltIn: boolean;
}

export interface GDirectiveDefinition {
  Description: string;
  Name: string;
  Arguments: GArgumentDefinition[];
  Locations: string[];
  IsRepeatable: boolean;
  Position: Pos | null;
}

export interface GOperationTypeDefinition {
  Operation: string;
  Type: string;
  Position: Pos | null;
}

export interface GSchemaDefinition {
  Description: string;
  Directives: GDirective[];
  OperationTypes: GOperationTypeDefinition[];
  Position: Pos | null;
}

export interface GSchemaDocument {
  Schema: GSchemaDefinition[];
  SchemaExtension: GSchemaDefinition[];
  Directives: GDirectiveDefinition[];
  Definitions: GDefinition[];
  Extensions: GDefinition[];
}

/** Type.String(): `[Foo!]`, `Bar`. */
export function typeString(t: GType): string {
  const inner = t.Elem !== null ? `[${typeString(t.Elem)}]` : t.NamedType;
  return t.NonNull ? `${inner}!` : inner;
}

/** Type.Name(): the innermost named type. */
export function typeName(t: GType): string {
  return t.Elem !== null ? typeName(t.Elem) : t.NamedType;
}

export function namedType(name: string, nonNull: boolean): GType {
  return { NamedType: name, Elem: null, NonNull: nonNull, Position: null };
}
