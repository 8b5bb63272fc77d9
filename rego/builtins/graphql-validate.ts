/**
 * Query validation against a schema (gqlparser's validator.Validate): a walker that resolves
 * field, argument and fragment definitions in gqlparser's order, and the standard rules of the
 * GraphQL spec with gqlparser's messages. Errors are collected in walk order; OPA reports the list.
 */
import {
  ValueKind,
  typeName,
  typeString,
  type GArgument,
  type GDefinition,
  type GDirective,
  type GDirectiveDefinition,
  type GField,
  type GFieldDefinition,
  type GFragmentDefinition,
  type GFragmentSpread,
  type GInlineFragment,
  type GOperation,
  type GQueryDocument,
  type GSelection,
  type GType,
  type GValue,
} from './graphql-ast.js';
import type { Pos } from './graphql-lexer.js';
import { GqlError } from './graphql-parser.js';
import type { GSchema } from './graphql-schema.js';
import { suggest } from './graphql-suggest.js';
import { validateOverlaps } from './graphql-overlap.js';
import { checkOperation, detectCycles, type OpContext } from './graphql-validate-ops.js';
import { checkValueType, isCompatible, type ValueInfo } from './graphql-values.js';

const TYPENAME: GFieldDefinition = {
  Description: '',
  Name: '__typename',
  Arguments: [],
  DefaultValue: null,
  Type: { NamedType: 'String', Elem: null, NonNull: true, Position: null },
  Directives: [],
  Position: null,
};

function isLeaf(d: GDefinition): boolean {
  return d.Kind === 'ENUM' || d.Kind === 'SCALAR';
}

function isComposite(d: GDefinition): boolean {
  return d.Kind === 'OBJECT' || d.Kind === 'INTERFACE' || d.Kind === 'UNION';
}

class Walker {
  readonly errors: GqlError[] = [];
  private op: GOperation | undefined;
  private expanded = new Set<string>();
  private readonly fragments = new Map<string, GFragmentDefinition>();
  private readonly usedFragments = new Set<string>();
  private inFragmentDefinitions = false;
  private readonly ctx: OpContext;

  constructor(
    private readonly schema: GSchema,
    private readonly doc: GQueryDocument,
    private readonly onStep: () => void,
  ) {
    for (const f of doc.Fragments) if (!this.fragments.has(f.Name)) this.fragments.set(f.Name, f);
    this.ctx = { schema, doc, fragments: this.fragments, add: (m, p) => this.add(m, p) };
  }

  private add(msg: string, pos: Pos | null): void {
    this.errors.push(new GqlError(msg, pos));
  }

  run(): void {
    for (const op of this.doc.Operations) {
      this.expanded = new Set();
      this.walkOperation(op);
    }
    this.inFragmentDefinitions = true;
    const seenFragments = new Set<string>();
    for (const f of this.doc.Fragments) {
      this.expanded = new Set();
      this.walkFragmentDefinition(f, seenFragments);
    }
    validateOverlaps(this.schema, this.doc, (m, p) => this.add(m, p));
  }

  private rootType(operation: string): GDefinition | undefined {
    if (operation === 'mutation') return this.schema.mutation;
    if (operation === 'subscription') return this.schema.subscription;
    return this.schema.query;
  }

  private walkOperation(op: GOperation): void {
    this.op = op;
    for (const vd of op.VariableDefinitions) {
      // KnownTypeNames on variables
      const tn = typeName(vd.Type!);
      if (!this.schema.types.has(tn)) this.add(`Unknown type "${tn}".`, vd.Position);
    }
    for (const vd of op.VariableDefinitions) {
      if (vd.DefaultValue !== null) {
        const t = vd.Type!;
        this.walkValue(vd.DefaultValue, {
          expected: t,
          def: this.schema.types.get(typeName(t)),
          hasDefault: false,
          variable: undefined,
        });
      }
      this.walkDirectives(vd.Directives, 'VARIABLE_DEFINITION');
    }
    const root = this.rootType(op.Operation);
    const loc = op.Operation === 'mutation' ? 'MUTATION' : op.Operation === 'subscription' ? 'SUBSCRIPTION' : 'QUERY';
    this.walkDirectives(op.Directives, loc);
    this.walkSelectionSet(root, op.SelectionSet);
    checkOperation(this.ctx, op, root);
    this.op = undefined;
  }

  private walkFragmentDefinition(f: GFragmentDefinition, seen: Set<string>): void {
    const def = this.schema.types.get(f.TypeCondition);
    this.walkDirectives(f.Directives, 'FRAGMENT_DEFINITION');
    this.walkSelectionSet(def, f.SelectionSet);
    // FragmentsOnCompositeTypes, KnownTypeNames, NoFragmentCycles, NoUnusedFragments, UniqueFragmentNames
    if (def !== undefined && f.TypeCondition !== '' && !isComposite(def)) {
      this.add(`Fragment "${f.Name}" cannot condition on non composite type "${f.TypeCondition}".`, f.Position);
    }
    if (def === undefined) {
      this.add(
        suggest(`Unknown type "${f.TypeCondition}".`, 'Did you mean', f.TypeCondition, [...this.schema.types.keys()]),
        f.Position,
      );
    }
    detectCycles(this.ctx, f);
    if (!this.usedFragments.has(f.Name)) this.add(`Fragment "${f.Name}" is never used.`, f.Position);
    if (seen.has(f.Name)) this.add(`There can be only one fragment named "${f.Name}".`, f.Position);
    seen.add(f.Name);
  }

  private walkSelectionSet(parent: GDefinition | undefined, set: readonly GSelection[]): void {
    for (const s of set) this.walkSelection(parent, s);
  }

  private walkSelection(parent: GDefinition | undefined, s: GSelection): void {
    this.onStep();
    if (s.kind === 'field') return this.walkField(parent, s);
    if (s.kind === 'inline') return this.walkInline(parent, s);
    return this.walkSpread(parent, s);
  }

  private walkField(parent: GDefinition | undefined, field: GField): void {
    let def: GFieldDefinition | undefined;
    if (field.Name === '__typename') def = TYPENAME;
    else if (parent !== undefined) def = parent.Fields.find((f) => f.Name === field.Name);
    const next = def ? this.schema.types.get(typeName(def.Type!)) : undefined;
    for (const arg of field.Arguments)
      this.walkArgument(
        def?.Arguments.find((a) => a.Name === arg.Name),
        arg,
      );
    this.walkDirectives(field.Directives, 'FIELD');
    this.walkSelectionSet(next, field.SelectionSet);
    // Field rules, in gqlparser's rule order.
    if (parent !== undefined && def === undefined) {
      let msg = `Cannot query field "${field.Name}" on type "${parent.Name}".`;
      if (parent.Kind === 'INTERFACE' || parent.Kind === 'UNION') {
        const impls = (this.schema.possibleTypes.get(parent.Name) ?? [])
          .filter((t) => t.Fields.some((f) => f.Name === field.Name))
          .map((t) => t.Name);
        if (impls.length > 0)
          msg += ` Did you mean to use an inline fragment on ${impls.map((n) => `"${n}"`).join(', ')}?`;
        else
          msg = suggest(
            msg,
            'Did you mean',
            field.Name,
            parent.Fields.map((f) => f.Name),
          );
      } else
        msg = suggest(
          msg,
          'Did you mean',
          field.Name,
          parent.Fields.map((f) => f.Name),
        );
      this.add(msg, field.Position);
    }
    if (def !== undefined && parent !== undefined) {
      for (const arg of field.Arguments) {
        if (!def.Arguments.some((a) => a.Name === arg.Name)) {
          this.add(
            suggest(
              `Unknown argument "${arg.Name}" on field "${parent.Name}.${field.Name}".`,
              'Did you mean',
              arg.Name,
              def.Arguments.map((a) => a.Name),
            ),
            field.Position,
          );
        }
      }
    }
    if (def !== undefined) {
      for (const a of def.Arguments) {
        if (a.Type!.NonNull && a.DefaultValue === null && !field.Arguments.some((x) => x.Name === a.Name)) {
          this.add(
            `Field "${field.Name}" argument "${a.Name}" of type "${typeString(a.Type!)}" is required, but it was not provided.`,
            field.Position,
          );
        }
      }
      const ft = this.schema.types.get(typeName(def.Type!));
      if (ft !== undefined) {
        if (isLeaf(ft) && field.SelectionSet.length > 0) {
          this.add(
            `Field "${field.Name}" must not have a selection since type "${ft.Name}" has no subfields.`,
            field.Position,
          );
        } else if (!isLeaf(ft) && field.SelectionSet.length === 0) {
          this.add(
            `Field "${field.Name}" of type "${typeString(def.Type!)}" must have a selection of subfields.`,
            field.Position,
          );
        }
      }
    }
    this.uniqueArguments(field.Arguments, field.Position);
  }

  private walkInline(parent: GDefinition | undefined, frag: GInlineFragment): void {
    const next = frag.TypeCondition !== '' ? this.schema.types.get(frag.TypeCondition) : parent;
    this.walkDirectives(frag.Directives, 'INLINE_FRAGMENT');
    this.walkSelectionSet(next, frag.SelectionSet);
    if (frag.TypeCondition !== '') {
      const t = this.schema.types.get(frag.TypeCondition);
      if (t !== undefined && !isComposite(t))
        this.add(`Fragment cannot condition on non composite type "${frag.TypeCondition}".`, frag.Position);
      if (t === undefined) this.add(`Unknown type "${frag.TypeCondition}".`, frag.Position);
      if (t !== undefined && parent !== undefined && !this.overlap(parent, t)) {
        this.add(
          `Fragment cannot be spread here as objects of type "${parent.Name}" can never be of type "${t.Name}".`,
          frag.Position,
        );
      }
    }
  }

  private walkSpread(parent: GDefinition | undefined, spread: GFragmentSpread): void {
    const def = this.fragments.get(spread.Name);
    const next = def ? this.schema.types.get(def.TypeCondition) : undefined;
    this.walkDirectives(spread.Directives, 'FRAGMENT_SPREAD');
    if (def !== undefined && !this.expanded.has(def.Name)) {
      this.expanded.add(def.Name);
      this.walkSelectionSet(next, def.SelectionSet);
    }
    if (def === undefined) this.add(`Unknown fragment "${spread.Name}".`, spread.Position);
    if (!this.inFragmentDefinitions) this.usedFragments.add(spread.Name);
    if (def !== undefined && next !== undefined && parent !== undefined && !this.overlap(parent, next)) {
      this.add(
        `Fragment "${spread.Name}" cannot be spread here as objects of type "${parent.Name}" can never be of type "${next.Name}".`,
        spread.Position,
      );
    }
  }

  private possible(t: GDefinition): Set<string> {
    if (t.Kind === 'OBJECT') return new Set([t.Name]);
    if (t.Kind === 'UNION') return new Set(t.Types);
    return new Set((this.schema.possibleTypes.get(t.Name) ?? []).map((d) => d.Name));
  }

  private overlap(a: GDefinition, b: GDefinition): boolean {
    const pa = this.possible(a);
    for (const n of this.possible(b)) if (pa.has(n)) return true;
    return false;
  }

  private walkArgument(argDef: { Type: GType | null; DefaultValue: GValue | null } | undefined, arg: GArgument): void {
    if (arg.Value === null) return;
    const info: ValueInfo = { expected: undefined, def: undefined, hasDefault: false, variable: undefined };
    if (argDef !== undefined) {
      info.expected = argDef.Type!;
      info.hasDefault = argDef.DefaultValue !== null && argDef.DefaultValue.Kind !== ValueKind.NullValue;
      info.def = this.schema.types.get(typeName(argDef.Type!));
    }
    this.walkValue(arg.Value, info);
  }

  private walkDirectives(dirs: readonly GDirective[], location: string): void {
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

  private uniqueArguments(args: readonly GArgument[], pos: Pos | null): void {
    const seen = new Set<string>();
    for (const a of args) {
      if (seen.has(a.Name)) this.add(`There can be only one argument named "${a.Name}".`, pos);
      seen.add(a.Name);
    }
  }

  private walkValue(v: GValue, info: ValueInfo): void {
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

/** validator.Validate: all errors, in walk order. */
export function validateQuery(schema: GSchema, doc: GQueryDocument, onStep: () => void = () => {}): GqlError[] {
  const w = new Walker(schema, doc, onStep);
  w.run();
  return w.errors;
}
