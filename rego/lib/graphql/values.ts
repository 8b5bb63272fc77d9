/**
 * Value checks of gqlparser's validator: ValuesOfCorrectType and the variable-type compatibility
 * used by VariablesInAllowedPosition (split from validate.ts).
 */
import { ValueKind, typeString, type GDefinition, type GType, type GValue, type GVariableDefinition } from './ast.js';
import type { Pos } from './lexer.js';
import { suggest } from './suggest.js';

/** What the walker resolved for a value (gqlparser stores these on the AST; we keep them aside). */
export interface ValueInfo {
  expected: GType | undefined;
  def: GDefinition | undefined;
  hasDefault: boolean;
  variable: GVariableDefinition | undefined;
}

/** Type.IsCompatible: can a variable of type t flow where `other` is expected? */
export function isCompatible(t: GType, other: GType): boolean {
  if (t.NamedType !== other.NamedType) return false;
  if (t.Elem !== null && other.Elem === null) return false;
  if (t.Elem !== null && !isCompatible(t.Elem, other.Elem!)) return false;
  if (other.NonNull) return t.NonNull;
  return true;
}

function valueString(v: GValue): string {
  switch (v.Kind) {
    case ValueKind.Variable:
      return `$${v.Raw}`;
    case ValueKind.StringValue:
    case ValueKind.BlockValue:
      return JSON.stringify(v.Raw);
    case ValueKind.ListValue:
      return `[${v.Children.map((c) => (c.Value ? valueString(c.Value) : 'null')).join(',')}]`;
    case ValueKind.ObjectValue:
      return `{${v.Children.map((c) => `${c.Name}:${c.Value ? valueString(c.Value) : 'null'}`).join(',')}}`;
    default:
      return v.Raw;
  }
}

/** ValuesOfCorrectType for one value (gqlparser rule messages). */
export function checkValueType(v: GValue, info: ValueInfo, add: (msg: string, pos: Pos | null) => void): void {
  const def = info.def;
  const expected = info.expected;
  if (def === undefined || expected === undefined) return;
  if (def.Kind === 'SCALAR' && !['Int', 'Float', 'String', 'Boolean', 'ID'].includes(def.Name)) return;
  const exp = typeString(expected);
  const unexpected = (): void => {
    let msg: string;
    switch (exp.replace(/!$/, '')) {
      case 'Int':
        msg = `Int cannot represent non-integer value: ${valueString(v)}`;
        break;
      case 'String':
        msg = `String cannot represent a non string value: ${valueString(v)}`;
        break;
      case 'Boolean':
        msg = `Boolean cannot represent a non boolean value: ${valueString(v)}`;
        break;
      case 'Float':
        msg = `Float cannot represent non numeric value: ${valueString(v)}`;
        break;
      case 'ID':
        msg = `ID cannot represent a non-string and non-integer value: ${valueString(v)}`;
        break;
      default:
        msg =
          def.Kind === 'ENUM'
            ? `Enum "${def.Name}" cannot represent non-enum value: ${valueString(v)}.`
            : `Expected value of type "${exp}", found ${valueString(v)}.`;
    }
    add(msg, v.Position);
  };
  switch (v.Kind) {
    case ValueKind.NullValue:
      if (expected.NonNull) add(`Expected value of type "${exp}", found null.`, v.Position);
      return;
    case ValueKind.ListValue:
      if (expected.Elem === null) unexpected();
      return;
    case ValueKind.IntValue:
      if (!['Int', 'Float', 'ID'].includes(def.Name)) unexpected();
      else if (def.Name === 'Int' && (Number(v.Raw) > 2147483647 || Number(v.Raw) < -2147483648)) {
        add(`Int cannot represent non 32-bit signed integer value: ${v.Raw}`, v.Position);
      }
      return;
    case ValueKind.FloatValue:
      if (def.Name !== 'Float') unexpected();
      return;
    case ValueKind.StringValue:
    case ValueKind.BlockValue:
      if (def.Kind === 'ENUM') unexpected();
      else if (def.Name !== 'String' && def.Name !== 'ID') unexpected();
      return;
    case ValueKind.EnumValue:
      if (def.Kind !== 'ENUM') unexpected();
      else if (!def.EnumValues.some((e) => e.Name === v.Raw)) {
        add(
          suggest(
            `Value "${v.Raw}" does not exist in "${def.Name}" enum.`,
            'Did you mean the enum value',
            v.Raw,
            def.EnumValues.map((e) => e.Name),
            false,
          ),
          v.Position,
        );
      }
      return;
    case ValueKind.BooleanValue:
      if (def.Name !== 'Boolean') unexpected();
      return;
    case ValueKind.ObjectValue:
      if (def.Kind !== 'INPUT_OBJECT') {
        unexpected();
        return;
      }
      for (const f of def.Fields) {
        if (f.Type!.NonNull && f.DefaultValue === null) {
          const given = v.Children.find((c) => c.Name === f.Name);
          if (given === undefined)
            add(
              `Field "${def.Name}.${f.Name}" of required type "${typeString(f.Type!)}" was not provided.`,
              v.Position,
            );
        }
      }
      for (const c of v.Children) {
        if (!def.Fields.some((f) => f.Name === c.Name)) {
          add(
            suggest(
              `Field "${c.Name}" is not defined by type "${def.Name}".`,
              'Did you mean',
              c.Name,
              def.Fields.map((f) => f.Name),
            ),
            c.Position,
          );
        }
      }
      return;
    default:
      return;
  }
}
