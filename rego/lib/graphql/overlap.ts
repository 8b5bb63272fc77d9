/**
 * OverlappingFieldsCanBeMerged, in its essentials: fields that share a response name within one
 * selection (fragments included) must be the same field with the same arguments, unless their
 * parent types are distinct object types; and their types must be compatible. Sub-selections of
 * same-named fields are compared recursively.
 */
import {
  typeName,
  typeString,
  type GDefinition,
  type GField,
  type GQueryDocument,
  type GSelection,
  type GType,
  type GValue,
} from './ast.js';
import type { Pos } from './lexer.js';
import type { GSchema } from './schema.js';

interface Collected {
  field: GField;
  parent: GDefinition | undefined;
}

function valueKey(v: GValue | null): string {
  if (v === null) return 'null';
  return `${v.Kind}:${v.Raw}:[${v.Children.map((c) => `${c.Name}=${valueKey(c.Value)}`).join(',')}]`;
}

function argsKey(f: GField): string {
  return f.Arguments.map((a) => `${a.Name}=${valueKey(a.Value)}`)
    .sort()
    .join(';');
}

function typesConflict(a: GType, b: GType): boolean {
  if (a.Elem !== null || b.Elem !== null) {
    if (a.Elem === null || b.Elem === null) return true;
    if (a.NonNull !== b.NonNull) return true;
    return typesConflict(a.Elem, b.Elem);
  }
  if (a.NonNull !== b.NonNull) return true;
  return a.NamedType !== b.NamedType;
}

class Overlaps {
  private readonly fragments = new Map<string, GSelection[]>();
  private readonly fragmentTypes = new Map<string, string>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly schema: GSchema,
    doc: GQueryDocument,
    private readonly add: (msg: string, pos: Pos | null) => void,
  ) {
    for (const f of doc.Fragments) {
      if (!this.fragments.has(f.Name)) {
        this.fragments.set(f.Name, f.SelectionSet);
        this.fragmentTypes.set(f.Name, f.TypeCondition);
      }
    }
  }

  private fieldType(c: Collected): GType | undefined {
    if (c.field.Name === '__typename') return { NamedType: 'String', Elem: null, NonNull: true, Position: null };
    return c.parent?.Fields.find((f) => f.Name === c.field.Name)?.Type ?? undefined;
  }

  collect(
    parent: GDefinition | undefined,
    set: readonly GSelection[],
    out: Map<string, Collected[]>,
    seen: Set<string>,
  ): Map<string, Collected[]> {
    for (const s of set) {
      if (s.kind === 'field') {
        const list = out.get(s.Alias);
        const c = { field: s, parent };
        if (list) list.push(c);
        else out.set(s.Alias, [c]);
      } else if (s.kind === 'inline') {
        const t = s.TypeCondition !== '' ? this.schema.types.get(s.TypeCondition) : parent;
        this.collect(t, s.SelectionSet, out, seen);
      } else if (!seen.has(s.Name)) {
        seen.add(s.Name);
        const frag = this.fragments.get(s.Name);
        if (frag) this.collect(this.schema.types.get(this.fragmentTypes.get(s.Name)!), frag, out, seen);
      }
    }
    return out;
  }

  check(parent: GDefinition | undefined, set: readonly GSelection[], depth: number): void {
    if (depth > 64) return;
    const groups = this.collect(parent, set, new Map(), new Set());
    for (const [name, list] of groups) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) this.compare(name, list[i]!, list[j]!, false, depth);
      }
    }
    // Nested selection sets are checked on their own, too.
    for (const s of set) {
      if (s.kind === 'field' && s.SelectionSet.length > 0) {
        const t = this.fieldType({ field: s, parent });
        this.check(t ? this.schema.types.get(typeName(t)) : undefined, s.SelectionSet, depth + 1);
      } else if (s.kind === 'inline') {
        this.check(s.TypeCondition !== '' ? this.schema.types.get(s.TypeCondition) : parent, s.SelectionSet, depth + 1);
      }
    }
  }

  private compare(name: string, a: Collected, b: Collected, parentsExclusive: boolean, depth: number): void {
    const exclusive =
      parentsExclusive ||
      (a.parent !== undefined &&
        b.parent !== undefined &&
        a.parent !== b.parent &&
        a.parent.Kind === 'OBJECT' &&
        b.parent.Kind === 'OBJECT');
    let reason: string | undefined;
    if (!exclusive) {
      if (a.field.Name !== b.field.Name) reason = `"${a.field.Name}" and "${b.field.Name}" are different fields`;
      else if (argsKey(a.field) !== argsKey(b.field)) reason = 'they have differing arguments';
    }
    const ta = this.fieldType(a);
    const tb = this.fieldType(b);
    if (reason === undefined && ta && tb && typesConflict(ta, tb)) {
      reason = `they return conflicting types "${typeString(ta)}" and "${typeString(tb)}"`;
    }
    if (reason !== undefined) {
      const key = `${name}@${b.field.Position?.line}:${b.field.Position?.col}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.add(
          `Fields "${name}" conflict because ${reason}. Use different aliases on the fields to fetch both if this was intentional.`,
          b.field.Position,
        );
      }
      return;
    }
    if (depth > 64 || a.field.SelectionSet.length === 0 || b.field.SelectionSet.length === 0) return;
    const pa = ta ? this.schema.types.get(typeName(ta)) : undefined;
    const pb = tb ? this.schema.types.get(typeName(tb)) : undefined;
    const ga = this.collect(pa, a.field.SelectionSet, new Map(), new Set());
    const gb = this.collect(pb, b.field.SelectionSet, new Map(), new Set());
    for (const [sub, la] of ga) {
      const lb = gb.get(sub);
      if (!lb) continue;
      for (const x of la) for (const y of lb) this.compare(sub, x, y, exclusive, depth + 1);
    }
  }
}

/** Reports conflicting same-named fields in every operation and fragment. */
export function validateOverlaps(
  schema: GSchema,
  doc: GQueryDocument,
  add: (msg: string, pos: Pos | null) => void,
): void {
  const o = new Overlaps(schema, doc, add);
  for (const op of doc.Operations) {
    const root =
      op.Operation === 'mutation'
        ? schema.mutation
        : op.Operation === 'subscription'
          ? schema.subscription
          : schema.query;
    o.check(root, op.SelectionSet, 0);
  }
  for (const f of doc.Fragments) o.check(schema.types.get(f.TypeCondition), f.SelectionSet, 0);
}
