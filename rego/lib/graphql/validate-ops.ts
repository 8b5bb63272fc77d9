/**
 * Operation- and fragment-level rules of gqlparser's validator (split from validate.ts):
 * KnownRootType, LoneAnonymousOperation, NoUnusedVariables, SingleFieldSubscriptions,
 * UniqueOperationNames, UniqueVariableNames, VariablesAreInputTypes, NoFragmentCycles.
 */
import {
  typeName,
  typeString,
  type GDefinition,
  type GField,
  type GFragmentDefinition,
  type GFragmentSpread,
  type GOperation,
  type GQueryDocument,
  type GSelection,
} from './ast.js';
import type { Pos } from './lexer.js';
import type { GSchema } from './schema.js';

export interface OpContext {
  schema: GSchema;
  doc: GQueryDocument;
  fragments: Map<string, GFragmentDefinition>;
  add: (msg: string, pos: Pos | null) => void;
}

function isInput(d: GDefinition): boolean {
  return d.Kind === 'SCALAR' || d.Kind === 'ENUM' || d.Kind === 'INPUT_OBJECT';
}

/** Operation-level rules, run after the operation is walked. */
export function checkOperation(ctx: OpContext, op: GOperation, root: GDefinition | undefined): void {
  if (root === undefined) ctx.add(`Schema does not support operation type "${op.Operation}"`, op.Position);
  if (op.Name === '' && ctx.doc.Operations.length > 1)
    ctx.add('This anonymous operation must be the only defined operation.', op.Position);
  for (const vd of op.VariableDefinitions) {
    if (!vd.Used) {
      ctx.add(
        op.Name !== ''
          ? `Variable "$${vd.Variable}" is never used in operation "${op.Name}".`
          : `Variable "$${vd.Variable}" is never used.`,
        vd.Position,
      );
    }
  }
  if (op.Operation === 'subscription') {
    const fields = topLevelFields(ctx, op.SelectionSet, new Set());
    if (fields.length > 1) {
      ctx.add(
        op.Name !== ''
          ? `Subscription "${op.Name}" must select only one top level field.`
          : 'Anonymous Subscription must select only one top level field.',
        fields[1]!.Position,
      );
    }
    for (const f of fields) {
      if (f.Name.startsWith('__')) {
        ctx.add(
          op.Name !== ''
            ? `Subscription "${op.Name}" must not select an introspection top level field.`
            : 'Anonymous Subscription must not select an introspection top level field.',
          f.Position,
        );
      }
    }
  }
  if (op.Name !== '' && ctx.doc.Operations.filter((o) => o.Name === op.Name).indexOf(op) > 0) {
    ctx.add(`There can be only one operation named "${op.Name}".`, op.Position);
  }
  const seenVars = new Set<string>();
  for (const vd of op.VariableDefinitions) {
    if (seenVars.has(vd.Variable)) ctx.add(`There can be only one variable named "$${vd.Variable}".`, vd.Position);
    seenVars.add(vd.Variable);
  }
  for (const vd of op.VariableDefinitions) {
    const def = ctx.schema.types.get(typeName(vd.Type!));
    if (def !== undefined && !isInput(def))
      ctx.add(`Variable "$${vd.Variable}" cannot be non-input type "${typeString(vd.Type!)}".`, vd.Position);
  }
}

function topLevelFields(ctx: OpContext, set: readonly GSelection[], seen: Set<string>): GField[] {
  const out: GField[] = [];
  for (const s of set) {
    if (s.kind === 'field') out.push(s);
    else if (s.kind === 'inline') out.push(...topLevelFields(ctx, s.SelectionSet, seen));
    else if (!seen.has(s.Name)) {
      seen.add(s.Name);
      const f = ctx.fragments.get(s.Name);
      if (f) out.push(...topLevelFields(ctx, f.SelectionSet, seen));
    }
  }
  return out;
}

/** NoFragmentCycles from one fragment definition. */
export function detectCycles(ctx: OpContext, start: GFragmentDefinition): void {
  const spreadsOf = (set: readonly GSelection[], out: GFragmentSpread[]): GFragmentSpread[] => {
    for (const s of set) {
      if (s.kind === 'spread') out.push(s);
      else spreadsOf(s.SelectionSet, out);
    }
    return out;
  };
  const path: GFragmentSpread[] = [];
  const visited = new Set<string>();
  const visit = (f: GFragmentDefinition): void => {
    if (visited.has(f.Name)) return;
    visited.add(f.Name);
    for (const spread of spreadsOf(f.SelectionSet, [])) {
      if (spread.Name === start.Name) {
        const via = path.map((p) => `"${p.Name}"`).join(', ');
        ctx.add(
          `Cannot spread fragment "${start.Name}" within itself${via ? ` via ${via}` : ''}.`,
          (path[0] ?? spread).Position,
        );
        continue;
      }
      const next = ctx.fragments.get(spread.Name);
      if (next === undefined) continue;
      path.push(spread);
      visit(next);
      path.pop();
    }
  };
  visit(start);
}
