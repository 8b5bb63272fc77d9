/**
 * The definition rules of gqlparser's schema validation (validator/schema.go): names, type
 * references, directive use, arguments, interface implementation and each kind's own constraints.
 */
import {
  typeName,
  typeString,
  type GArgumentDefinition,
  type GDefinition,
  type GDirective,
  type GDirectiveDefinition,
  type GType,
} from './ast.js';
import type { Pos } from './lexer.js';
import { GqlError } from './parser.js';
import type { GSchema } from './schema.js';

function err(pos: Pos | null, msg: string): GqlError {
  return new GqlError(msg, pos);
}

const q = (s: string): string => JSON.stringify(s);

function isInputType(d: GDefinition): boolean {
  return d.Kind === 'SCALAR' || d.Kind === 'ENUM' || d.Kind === 'INPUT_OBJECT';
}

export function validateName(pos: Pos | null, name: string): void {
  if (name.startsWith('__'))
    throw err(pos, `Name "${name}" must not begin with "__", which is reserved by GraphQL introspection.`);
}

function validateTypeRef(s: GSchema, t: GType): void {
  if (!s.types.has(typeName(t))) throw err(t.Position, `Undefined type ${typeName(t)}.`);
}

export function validateDirectives(
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

export function validateArgs(s: GSchema, args: readonly GArgumentDefinition[], current?: GDirectiveDefinition): void {
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

export function validateDefinition(s: GSchema, def: GDefinition): void {
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
