/**
 * Which Rego package each Policy owns. The policies of one scope compile into one plan, where modules of the same
 * package merge their rules and a package nested in another one's rule clashes with it: a policy could then add
 * rules to another policy (turning a helper of the built-in pack true for its tenant) or break the plan of every
 * scope it shares. So no two policies that can meet in a scope may declare the same package, or one nested in the
 * other; the engine drops the less trusted of two such policies (and reports it), and the dynamic policies API
 * refuses to write one. Operator documents (files, kubectl) are trusted over API-written ones, older over newer.
 */
import { GROUP, LABELS, type PolicyResource } from '../../api/index.js';
import { parseModule } from '../../rego/index.js';

/** The `LABELS.managedBy` value of the documents the dynamic policies API writes. */
export const API_MANAGED = 'steward-api';
/** When the API created a document (ISO-8601), the age that decides between two API-written policies. */
export const CREATED_ANNOTATION = `${GROUP}/created-at`;

/** A policy's package path (`['steward', 'builtin', 'pii']`), or undefined when its Rego does not parse. */
export function packageOf(doc: PolicyResource): string[] | undefined {
  if (doc.spec.rego === undefined) return undefined;
  try {
    return parseModule(`${doc.metadata.name}.rego`, doc.spec.rego, { regoVersion: doc.spec.regoVersion ?? 'v1' })
      .package.path;
  } catch {
    return undefined;
  }
}

/** Equal, or one nested in the other (`a.b` and `a.b.c`): the two would merge or clash in one plan. */
export function packagesOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether some request scope (surface × organization × tenant) holds both policies. */
export function scopesMeet(a: PolicyResource, b: PolicyResource): boolean {
  const meet = (x: readonly string[] | undefined, y: readonly string[] | undefined) =>
    !x?.length || !y?.length || x.some((v) => y.includes(v));
  const sa = a.spec.scope;
  const sb = b.spec.scope;
  return (
    meet(sa?.organizations, sb?.organizations) && meet(sa?.tenants, sb?.tenants) && meet(sa?.surfaces, sb?.surfaces)
  );
}

/** Trust order: operator documents first, then the older API-written ones, then by name. */
export function trustOrder(a: PolicyResource, b: PolicyResource): number {
  const api = (d: PolicyResource) => (d.metadata.labels?.[LABELS.managedBy] === API_MANAGED ? 1 : 0);
  const created = (d: PolicyResource) => d.metadata.annotations?.[CREATED_ANNOTATION] ?? '';
  return api(a) - api(b) || created(a).localeCompare(created(b)) || a.metadata.name.localeCompare(b.metadata.name);
}

export interface PackageConflict {
  /** the policy that keeps the package */
  owner: PolicyResource;
  package: string;
}

/**
 * Splits policies into those that keep their package and those that overlap a more trusted one they can meet in a
 * scope (with that one). Policies without a parsed package keep theirs (their compile error is reported elsewhere).
 */
export function resolvePackages<T extends { doc: PolicyResource }>(
  items: readonly T[],
): { kept: T[]; dropped: { item: T; conflict: PackageConflict }[] } {
  const ordered = [...items].sort((x, y) => trustOrder(x.doc, y.doc));
  const kept: { item: T; pkg: string[] | undefined }[] = [];
  const dropped: { item: T; conflict: PackageConflict }[] = [];
  for (const item of ordered) {
    const pkg = packageOf(item.doc);
    const owner = pkg && kept.find((k) => k.pkg && packagesOverlap(k.pkg, pkg) && scopesMeet(k.item.doc, item.doc));
    if (owner) dropped.push({ item, conflict: { owner: owner.item.doc, package: owner.pkg!.join('.') } });
    else kept.push({ item, pkg });
  }
  const keep = new Set(kept.map((k) => k.item));
  return { kept: items.filter((i) => keep.has(i)), dropped };
}

/** The first of `others` whose package `candidate`'s overlaps in a scope they share (itself excluded). */
export function overlapping(candidate: PolicyResource, others: Iterable<PolicyResource>): PolicyResource | undefined {
  const pkg = packageOf(candidate);
  if (!pkg) return undefined;
  for (const o of others) {
    // NB: by name only: a document the API is about to write has no namespace yet (the source gives it its own)
    if (o.metadata.name === candidate.metadata.name) continue;
    const other = packageOf(o);
    if (other && packagesOverlap(pkg, other) && scopesMeet(candidate, o)) return o;
  }
  return undefined;
}

/** The problem message of a dropped policy. */
export function conflictMessage(doc: PolicyResource, conflict: PackageConflict): string {
  return `package ${packageOf(doc)?.join('.') ?? '?'} overlaps package ${conflict.package} of policy ${conflict.owner.metadata.name}: a policy may not add rules to another's package`;
}
