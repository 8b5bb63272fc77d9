/**
 * Apply conflicts, reported as the apiserver's internal/conflict.go does: a 409 whose message names each
 * manager (and for updaters the API version they used) and whose causes list one field each.
 */
import { PatchError } from './errors.js';
import { FieldSet, pathString, type PathElement } from './fieldset.js';

export interface Conflict {
  /** Manager identity (see managerId). */
  managerId: string;
  path: PathElement[];
}

/** One conflict per owned path, managers in identity order, paths in field-set order. */
export function conflictsOf(byManager: Map<string, FieldSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const id of [...byManager.keys()].sort()) {
    for (const path of byManager.get(id)!.paths()) out.push({ managerId: id, path });
  }
  return out;
}

/** printManager: `"name"`, plus ` with subresource "s"` and, for updaters, ` using <apiVersion>`. */
export function printManager(id: string): string {
  let e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    e = JSON.parse(id) as typeof e;
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
  return s;
}

export function conflictError(conflicts: readonly Conflict[]): PatchError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.managerId)}`,
    field: pathString(c.path),
  }));
  return new PatchError(409, 'Conflict', conflictMessage(conflicts), { details: { causes } });
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.managerId)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.managerId) ?? [];
    paths.push(pathString(c.path));
    byManager.set(c.managerId, paths);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(id)}:`);
    for (const p of byManager.get(id)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
