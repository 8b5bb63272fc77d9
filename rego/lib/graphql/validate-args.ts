/**
 * The directive, argument and input-value rules of gqlparser's validator, as the base of the query
 * walker (validate.ts): KnownDirectives, DirectivesInValidLocations, UniqueDirectivesPerLocation,
 * KnownArgumentNames on directives, ProvidedRequiredArguments, UniqueArgumentNames,
 * NoUndefinedVariables, UniqueInputFieldNames, ValuesOfCorrectType and VariablesInAllowedPosition.
 */
import {
  ValueKind,
  typeName,
  typeString,
  type GArgument,
  type GDirective,
  type GDirectiveDefinition,
  type GOperation,
  type GType,
  type GValue,
} from './ast.js';
import type { Pos } from './lexer.js';
import { GqlError } from './parser.js';
import type { GSchema } from './schema.js';
import { suggest } from './suggest.js';
import { checkValueType, isCompatible, type ValueInfo } from './values.js';

export abstract class ArgumentWalker {
  readonly errors: GqlError[] = [];
  /** The operation being walked; undefined inside fragment definitions. */
  protected op: GOperation | undefined;

  constructor(protected readonly schema: GSchema) {}

  protected add(msg: string, pos: Pos | null): void {
    this.errors.push(new GqlError(msg, pos));
  }

  protected walkArgument(
    argDef: { Type: GType | null; DefaultValue: GValue | null } | undefined,
    arg: GArgument,
  ): void {
    if (arg.Value === null) return;
    const info: ValueInfo = { expected: undefined, def: undefined, hasDefault: false, variable: undefined };
    if (argDef !== undefined) {
      info.expected = argDef.Type!;
      info.hasDefault = argDef.DefaultValue !== null && argDef.DefaultValue.Kind !== ValueKind.NullValue;
      info.def = this.schema.types.get(typeName(argDef.Type!));
    }
    this.walkValue(arg.Value, info);
  }

  protected walkDirectives(dirs: readonly GDirective[], location: string): void {
    for (const dir of dirs) {
      const def = this.schema.directives.get(dir.Name);
      for (const arg of dir.Arguments)
        this.walkArgument(
          def?.Arguments.find((a) => a.Name === arg.Name),
          arg,
        );
      this.onDirective(dir, def, location);
    }
    // UniqueDirectivesPerLocation
    const seen = new Set<string>();
    for (const dir of dirs) {
      const def = this.schema.directives.get(dir.Name);
      if (seen.has(dir.Name) && !(def?.IsRepeatable ?? false))
        this.add(`The directive "@${dir.Name}" can only be used once at this location.`, dir.Position);
      seen.add(dir.Name);
    }
  }

  private onDirective(dir: GDirective, def: GDirectiveDefinition | undefined, location: string): void {
    if (def !== undefined) {
      for (const arg of dir.Arguments) {
        if (!def.Arguments.some((a) => a.Name === arg.Name)) {
          this.add(
            suggest(
              `Unknown argument "${arg.Name}" on directive "@${dir.Name}".`,
              'Did you mean',
              arg.Name,
              def.Arguments.map((a) => a.Name),
            ),
            dir.Position,
          );
        }
      }
    }
    if (def === undefined) this.add(`Unknown directive "@${dir.Name}".`, dir.Position);
    else if (!def.Locations.includes(location))
      this.add(`Directive "@${dir.Name}" may not be used on ${location}.`, dir.Position);
    if (def !== undefined) {
      for (const a of def.Arguments) {
        if (a.Type!.NonNull && a.DefaultValue === null && !dir.Arguments.some((x) => x.Name === a.Name)) {
          this.add(
            `Directive "@${dir.Name}" argument "${a.Name}" of type "${typeString(a.Type!)}" is required, but it was not provided.`,
            dir.Position,
          );
        }
      }
    }
    this.uniqueArguments(dir.Arguments, dir.Position);
  }

  protected uniqueArguments(args: readonly GArgument[], pos: Pos | null): void {
    const seen = new Set<string>();
    for (const a of args) {
      if (seen.has(a.Name)) this.add(`There can be only one argument named "${a.Name}".`, pos);
      seen.add(a.Name);
    }
  }

  protected walkValue(v: GValue, info: ValueInfo): void {
    if (v.Kind === ValueKind.Variable && this.op !== undefined) {
      info.variable = this.op.VariableDefinitions.find((d) => d.Variable === v.Raw);
      if (info.variable) info.variable.Used = true;
    }
    if (v.Kind === ValueKind.ObjectValue) {
      for (const child of v.Children) {
        if (child.Value === null) continue;
        const fd = info.def?.Fields.find((f) => f.Name === child.Name);
        this.walkValue(
          child.Value,
          fd
            ? {
                expected: fd.Type!,
                def: this.schema.types.get(typeName(fd.Type!)),
                hasDefault: false,
                variable: undefined,
              }
            : { expected: undefined, def: undefined, hasDefault: false, variable: undefined },
        );
      }
    }
    if (v.Kind === ValueKind.ListValue) {
      for (const child of v.Children) {
        if (child.Value === null) continue;
        const elem = info.expected?.Elem ?? undefined;
        this.walkValue(
          child.Value,
          elem
            ? { expected: elem, def: info.def, hasDefault: false, variable: undefined }
            : { expected: undefined, def: undefined, hasDefault: false, variable: undefined },
        );
      }
    }
    this.onValue(v, info);
  }

  private onValue(v: GValue, info: ValueInfo): void {
    // NoUndefinedVariables
    if (this.op !== undefined && v.Kind === ValueKind.Variable && info.variable === undefined) {
      this.add(
        this.op.Name !== ''
          ? `Variable "$${v.Raw}" is not defined by operation "${this.op.Name}".`
          : `Variable "$${v.Raw}" is not defined.`,
        v.Position,
      );
    }
    // UniqueInputFieldNames
    if (v.Kind === ValueKind.ObjectValue) {
      const seen = new Set<string>();
      for (const c of v.Children) {
        if (seen.has(c.Name)) this.add(`There can be only one input field named "${c.Name}".`, c.Position);
        seen.add(c.Name);
      }
    }
    checkValueType(v, info, (m, p) => this.add(m, p));
    // VariablesInAllowedPosition
    if (
      v.Kind === ValueKind.Variable &&
      info.expected !== undefined &&
      info.variable !== undefined &&
      this.op !== undefined
    ) {
      const want: GType = { ...info.expected };
      const dv = info.variable.DefaultValue;
      if ((dv !== null && dv.Kind !== ValueKind.NullValue) || info.hasDefault) want.NonNull = false;
      if (!isCompatible(info.variable.Type!, want)) {
        this.add(
          `Variable "$${v.Raw}" of type "${typeString(info.variable.Type!)}" used in position expecting type "${typeString(info.expected)}".`,
          v.Position,
        );
      }
    }
  }
}
