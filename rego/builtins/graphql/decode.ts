/**
 * AST objects back to GraphQL documents, as OPA does it (JSON into gqlparser's structs):
 * Go's json decoding rules — exact key first, else a case-insensitive match; null is the zero
 * value; a wrong JSON type is an error — and gqlparser's custom selection decoding, which tries a
 * Field first. NB: since a Field accepts almost any object, fragment objects decode as fields,
 * exactly as in OPA.
 */
import { NumLit, RObject, hasIntText, type Value } from '../../value.js';
import {
  ValueKind,
  type GArgument,
  type GArgumentDefinition,
  type GDefinition,
  type GDirective,
  type GDirectiveDefinition,
  type GField,
  type GFieldDefinition,
  type GFragmentDefinition,
  type GInlineFragment,
  type GOperation,
  type GQueryDocument,
  type GSchemaDefinition,
  type GSchemaDocument,
  type GSelection,
  type GType,
  type GValue,
  type GVariableDefinition,
} from '../../lib/graphql/index.js';

export class DecodeError extends Error {}

function jsonType(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof NumLit) return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

function mismatch(v: Value, where: string, goType: string): never {
  throw new DecodeError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${where} of type ${goType}`);
}

/** A struct field: exact key, or (for default decoding) a case-insensitive one. */
function get(o: RObject, key: string, exact = false): Value | undefined {
  const v = o.get(key);
  if (v !== undefined || exact) return v;
  const lower = key.toLowerCase();
  for (const k of o.keys()) if (typeof k === 'string' && k.toLowerCase() === lower) return o.get(k);
  return undefined;
}

function obj(v: Value, where: string, goType: string): RObject {
  if (!(v instanceof RObject)) mismatch(v, where, goType);
  return v;
}

function str(v: Value | undefined, where: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') mismatch(v, where, 'string');
  return v;
}

function bool(v: Value | undefined, where: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') mismatch(v, where, 'bool');
  return v;
}

function int(v: Value | undefined, where: string): number {
  if (v === undefined || v === null) return 0;
  if (v instanceof NumLit && hasIntText(v)) v = v.n;
  if (typeof v !== 'number' || !Number.isInteger(v)) mismatch(v, where, 'int');
  return v;
}

function list<T>(v: Value | undefined, where: string, goType: string, item: (x: Value) => T | undefined): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) mismatch(v, where, goType);
  const out: T[] = [];
  for (const x of v) {
    const t = item(x);
    if (t !== undefined) out.push(t);
  }
  return out;
}

function ptr<T>(v: Value | undefined, f: (x: Value) => T): T | null {
  return v === undefined || v === null ? null : f(v);
}

function type(v: Value): GType {
  const o = obj(v, 'Type', 'ast.Type');
  return {
    NamedType: str(get(o, 'NamedType'), 'Type.NamedType'),
    Elem: ptr(get(o, 'Elem'), type),
    NonNull: bool(get(o, 'NonNull'), 'Type.NonNull'),
    Position: null,
  };
}

function value(v: Value): GValue {
  const o = obj(v, 'Value', 'ast.Value');
  return {
    Raw: str(get(o, 'Raw'), 'Value.Raw'),
    Children: list(get(o, 'Children'), 'Value.Children', 'ast.ChildValueList', (c) => {
      const co = obj(c, 'Value.Children', 'ast.ChildValue');
      return { Name: str(get(co, 'Name'), 'ChildValue.Name'), Value: ptr(get(co, 'Value'), value), Position: null };
    }),
    Kind: int(get(o, 'Kind'), 'Value.Kind') as ValueKind,
    Position: null,
    ExpectedTypeHasDefault: bool(get(o, 'ExpectedTypeHasDefault'), 'Value.ExpectedTypeHasDefault'),
  };
}

function argument(v: Value): GArgument {
  const o = obj(v, 'Arguments', 'ast.Argument');
  return { Name: str(get(o, 'Name'), 'Argument.Name'), Value: ptr(get(o, 'Value'), value), Position: null };
}

function directive(v: Value): GDirective {
  const o = obj(v, 'Directives', 'ast.Directive');
  return {
    Name: str(get(o, 'Name'), 'Directive.Name'),
    Arguments: list(get(o, 'Arguments'), 'Directive.Arguments', 'ast.ArgumentList', argument),
    Position: null,
    Location: str(get(o, 'Location'), 'Directive.Location'),
  };
}

function variableDefinition(v: Value): GVariableDefinition {
  const o = obj(v, 'VariableDefinitions', 'ast.VariableDefinition');
  return {
    Variable: str(get(o, 'Variable'), 'VariableDefinition.Variable'),
    Type: ptr(get(o, 'Type'), type),
    DefaultValue: ptr(get(o, 'DefaultValue'), value),
    Directives: list(get(o, 'Directives'), 'VariableDefinition.Directives', 'ast.DirectiveList', directive),
    Used: bool(get(o, 'Used'), 'VariableDefinition.Used'),
    Position: null,
  };
}

function field(o: RObject): GField {
  return {
    kind: 'field',
    Alias: str(get(o, 'Alias', true), 'Field.Alias'),
    Name: str(get(o, 'Name', true), 'Field.Name'),
    Arguments: list(get(o, 'Arguments', true), 'Field.Arguments', 'ast.ArgumentList', argument),
    Directives: list(get(o, 'Directives', true), 'Field.Directives', 'ast.DirectiveList', directive),
    SelectionSet: selectionSet(get(o, 'SelectionSet', true)),
    Position: null,
  };
}

function inlineFragment(o: RObject): GInlineFragment {
  return {
    kind: 'inline',
    TypeCondition: str(get(o, 'TypeCondition', true), 'InlineFragment.TypeCondition'),
    Directives: list(get(o, 'Directives', true), 'InlineFragment.Directives', 'ast.DirectiveList', directive),
    SelectionSet: selectionSet(get(o, 'SelectionSet', true)),
    Position: null,
  };
}

/** gqlparser's UnmarshalSelectionSet: the first of Field, FragmentSpread, InlineFragment that decodes. */
function selectionSet(v: Value | undefined): GSelection[] {
  return list(v, 'SelectionSet', 'ast.SelectionSet', (item) => {
    if (!(item instanceof RObject)) return undefined;
    const attempts: (() => GSelection)[] = [
      () => field(item),
      () => ({
        kind: 'spread',
        Name: str(get(item, 'Name'), 'FragmentSpread.Name'),
        Directives: list(get(item, 'Directives'), 'FragmentSpread.Directives', 'ast.DirectiveList', directive),
        Position: null,
      }),
      () => inlineFragment(item),
    ];
    for (const attempt of attempts) {
      try {
        return attempt();
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
      }
    }
    return undefined;
  });
}

function operation(v: Value): GOperation {
  const o = obj(v, 'Operations', 'ast.OperationDefinition');
  return {
    Operation: str(get(o, 'Operation', true), 'OperationDefinition.Operation'),
    Name: str(get(o, 'Name', true), 'OperationDefinition.Name'),
    VariableDefinitions: list(
      get(o, 'VariableDefinitions', true),
      'OperationDefinition.VariableDefinitions',
      'ast.VariableDefinitionList',
      variableDefinition,
    ),
    Directives: list(get(o, 'Directives', true), 'OperationDefinition.Directives', 'ast.DirectiveList', directive),
    SelectionSet: selectionSet(get(o, 'SelectionSet', true)),
    Position: null,
  };
}

function fragmentDefinition(v: Value): GFragmentDefinition {
  const o = obj(v, 'Fragments', 'ast.FragmentDefinition');
  return {
    Name: str(get(o, 'Name', true), 'FragmentDefinition.Name'),
    VariableDefinition: list(
      get(o, 'VariableDefinition', true),
      'FragmentDefinition.VariableDefinition',
      'ast.VariableDefinitionList',
      variableDefinition,
    ),
    TypeCondition: str(get(o, 'TypeCondition', true), 'FragmentDefinition.TypeCondition'),
    Directives: list(get(o, 'Directives', true), 'FragmentDefinition.Directives', 'ast.DirectiveList', directive),
    SelectionSet: selectionSet(get(o, 'SelectionSet', true)),
    Position: null,
  };
}

/** An AST object (as graphql.parse_query returns) back to a query document. */
export function decodeQuery(v: RObject): GQueryDocument {
  return {
    Operations: list(get(v, 'Operations'), 'QueryDocument.Operations', 'ast.OperationList', operation),
    Fragments: list(get(v, 'Fragments'), 'QueryDocument.Fragments', 'ast.FragmentDefinitionList', fragmentDefinition),
  };
}

function argumentDefinition(v: Value): GArgumentDefinition {
  const o = obj(v, 'Arguments', 'ast.ArgumentDefinition');
  return {
    Description: str(get(o, 'Description'), 'ArgumentDefinition.Description'),
    Name: str(get(o, 'Name'), 'ArgumentDefinition.Name'),
    DefaultValue: ptr(get(o, 'DefaultValue'), value),
    Type: ptr(get(o, 'Type'), type),
    Directives: list(get(o, 'Directives'), 'ArgumentDefinition.Directives', 'ast.DirectiveList', directive),
    Position: null,
  };
}

function fieldDefinition(v: Value): GFieldDefinition {
  const o = obj(v, 'Fields', 'ast.FieldDefinition');
  return {
    Description: str(get(o, 'Description'), 'FieldDefinition.Description'),
    Name: str(get(o, 'Name'), 'FieldDefinition.Name'),
    Arguments: list(get(o, 'Arguments'), 'FieldDefinition.Arguments', 'ast.ArgumentDefinitionList', argumentDefinition),
    DefaultValue: ptr(get(o, 'DefaultValue'), value),
    Type: ptr(get(o, 'Type'), type),
    Directives: list(get(o, 'Directives'), 'FieldDefinition.Directives', 'ast.DirectiveList', directive),
    Position: null,
  };
}

function strings(v: Value | undefined, where: string): string[] {
  return list(v, where, '[]string', (x) => str(x, where));
}

function definition(v: Value): GDefinition {
  const o = obj(v, 'Definitions', 'ast.Definition');
  return {
    Kind: str(get(o, 'Kind'), 'Definition.Kind'),
    Description: str(get(o, 'Description'), 'Definition.Description'),
    Name: str(get(o, 'Name'), 'Definition.Name'),
    Directives: list(get(o, 'Directives'), 'Definition.Directives', 'ast.DirectiveList', directive),
    Interfaces: strings(get(o, 'Interfaces'), 'Definition.Interfaces'),
    Fields: list(get(o, 'Fields'), 'Definition.Fields', 'ast.FieldList', fieldDefinition),
    Types: strings(get(o, 'Types'), 'Definition.Types'),
    EnumValues: list(get(o, 'EnumValues'), 'Definition.EnumValues', 'ast.EnumValueList', (x) => {
      const e = obj(x, 'EnumValues', 'ast.EnumValueDefinition');
      return {
        Description: str(get(e, 'Description'), 'EnumValueDefinition.Description'),
        Name: str(get(e, 'Name'), 'EnumValueDefinition.Name'),
        Directives: list(get(e, 'Directives'), 'EnumValueDefinition.Directives', 'ast.DirectiveList', directive),
        Position: null,
      };
    }),
    Position: null,
    BuiltIn: bool(get(o, 'BuiltIn'), 'Definition.BuiltIn'),
  };
}

function schemaDefinition(v: Value): GSchemaDefinition {
  const o = obj(v, 'Schema', 'ast.SchemaDefinition');
  return {
    Description: str(get(o, 'Description'), 'SchemaDefinition.Description'),
    Directives: list(get(o, 'Directives'), 'SchemaDefinition.Directives', 'ast.DirectiveList', directive),
    OperationTypes: list(
      get(o, 'OperationTypes'),
      'SchemaDefinition.OperationTypes',
      'ast.OperationTypeDefinitionList',
      (x) => {
        const t = obj(x, 'OperationTypes', 'ast.OperationTypeDefinition');
        return {
          Operation: str(get(t, 'Operation'), 'OperationTypeDefinition.Operation'),
          Type: str(get(t, 'Type'), 'OperationTypeDefinition.Type'),
          Position: null,
        };
      },
    ),
    Position: null,
  };
}

function directiveDefinition(v: Value): GDirectiveDefinition {
  const o = obj(v, 'Directives', 'ast.DirectiveDefinition');
  return {
    Description: str(get(o, 'Description'), 'DirectiveDefinition.Description'),
    Name: str(get(o, 'Name'), 'DirectiveDefinition.Name'),
    Arguments: list(
      get(o, 'Arguments'),
      'DirectiveDefinition.Arguments',
      'ast.ArgumentDefinitionList',
      argumentDefinition,
    ),
    Locations: strings(get(o, 'Locations'), 'DirectiveDefinition.Locations'),
    IsRepeatable: bool(get(o, 'IsRepeatable'), 'DirectiveDefinition.IsRepeatable'),
    Position: null,
  };
}

/** An AST object (as graphql.parse_schema returns) back to a schema document. */
export function decodeSchema(v: RObject): GSchemaDocument {
  return {
    Schema: list(get(v, 'Schema'), 'SchemaDocument.Schema', 'ast.SchemaDefinitionList', schemaDefinition),
    SchemaExtension: list(
      get(v, 'SchemaExtension'),
      'SchemaDocument.SchemaExtension',
      'ast.SchemaDefinitionList',
      schemaDefinition,
    ),
    Directives: list(
      get(v, 'Directives'),
      'SchemaDocument.Directives',
      'ast.DirectiveDefinitionList',
      directiveDefinition,
    ),
    Definitions: list(get(v, 'Definitions'), 'SchemaDocument.Definitions', 'ast.DefinitionList', definition),
    Extensions: list(get(v, 'Extensions'), 'SchemaDocument.Extensions', 'ast.DefinitionList', definition),
  };
}
