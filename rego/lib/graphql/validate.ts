/**
 * Query validation against a schema (gqlparser's validator.Validate): a walker that resolves
 * field, argument and fragment definitions in gqlparser's order, and the standard rules of the
 * GraphQL spec with gqlparser's messages. Errors are collected in walk order; OPA reports the list.
 * Directives, arguments and input values are checked by the walker's base (validate-args.ts).
 */
import {
  typeName,
  typeString,
  type GDefinition,
  type GField,
  type GFieldDefinition,
  type GFragmentDefinition,
  type GFragmentSpread,
  type GInlineFragment,
  type GOperation,
  type GQueryDocument,
  type GSelection,
} from './ast.js';
import { GqlError } from './parser.js';
import type { GSchema } from './schema.js';
import { suggest } from './suggest.js';
import { validateOverlaps } from './overlap.js';
import { checkOperation, detectCycles, type OpContext } from './validate-ops.js';
import { ArgumentWalker } from './validate-args.js';

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

class Walker extends ArgumentWalker {
  private expanded = new Set<string>();
  private readonly fragments = new Map<string, GFragmentDefinition>();
  private readonly usedFragments = new Set<string>();
  private inFragmentDefinitions = false;
  private readonly ctx: OpContext;

  constructor(
    schema: GSchema,
    private readonly doc: GQueryDocument,
    private readonly onStep: () => void,
  ) {
    super(schema);
    for (const f of doc.Fragments) if (!this.fragments.has(f.Name)) this.fragments.set(f.Name, f);
    this.ctx = { schema, doc, fragments: this.fragments, add: (m, p) => this.add(m, p) };
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
}

/** validator.Validate: all errors, in walk order. */
export function validateQuery(schema: GSchema, doc: GQueryDocument, onStep: () => void = () => {}): GqlError[] {
  const w = new Walker(schema, doc, onStep);
  w.run();
  return w.errors;
}
