/**
 * Which policies apply where, and the plan of every scope (surface × organization × tenant) compiled when the
 * policies load, never on a request.
 */
import { LLM_OUTPUT_SURFACE, policySurface, type PolicyResource } from '../../api/index.js';
import type { Loaded } from './last-good.js';
import { planKey, ScopePlan, type PlanCompilers, type PlanEntry } from './plan.js';
import type { PolicyScope } from './types.js';

/** The plans of every scope, and the organizations and tenants some policy names. */
export interface Scopes {
  /**
   * Plans by scope key (`surface \0 organization \0 tenant`); organizations and tenants no policy names share the
   * unscoped plans.
   */
  byScope: Map<string, ScopePlan>;
  tenants: Set<string>;
  organizations: Set<string>;
  /** The entries of each distinct plan, by plan key (what the isolation workers compile). */
  entriesOf: [string, PlanEntry[]][];
}

/**
 * Compiles the plan of every surface × (each organization some policy names, and none) × (each tenant some policy
 * names, and none), sharing equal plans: only distinct policy lists compile, and plans of `previous` are reused.
 */
export function compileScopes(
  loaded: readonly Loaded[],
  previous: Iterable<ScopePlan>,
  compilers: PlanCompilers,
): Scopes {
  const tenants = new Set<string>();
  const organizations = new Set<string>();
  for (const l of loaded) {
    for (const t of l.doc.spec.scope?.tenants ?? []) tenants.add(t);
    for (const o of l.doc.spec.scope?.organizations ?? []) organizations.add(o);
  }
  const reuse = new Map([...previous].map((p) => [p.key, p]));
  const plans = new Map<string, ScopePlan>();
  const byScope = new Map<string, ScopePlan>();
  const entriesOf: [string, PlanEntry[]][] = [];
  const combos = ['', ...organizations].flatMap((org) => ['', ...tenants].map((tenant) => [org, tenant] as const));
  for (const surface of policySurface.options) {
    for (const [org, tenant] of combos) {
      const scope = { surface, organizationId: org || undefined, tenantId: tenant || undefined };
      const entries = loaded.filter((l) => inScope(l.doc, scope)).map((l) => l.entry);
      const key = planKey(entries);
      let plan = plans.get(key);
      if (!plan) {
        plan = reuse.get(key) ?? new ScopePlan(key, entries, compilers);
        plans.set(key, plan);
        entriesOf.push([key, entries]);
      }
      byScope.set(scopeKey(surface, org, tenant), plan);
    }
  }
  return { byScope, tenants, organizations, entriesOf };
}

/** The plan of a request's scope. NB: every scope is compiled by compileScopes, so this never compiles. */
export function planFor(scopes: Scopes, scope: PolicyScope): ScopePlan {
  const tenant = scope.tenantId !== undefined && scopes.tenants.has(scope.tenantId) ? scope.tenantId : '';
  const org =
    scope.organizationId !== undefined && scopes.organizations.has(scope.organizationId) ? scope.organizationId : '';
  return scopes.byScope.get(scopeKey(scope.surface, org, tenant))!;
}

const scopeKey = (surface: string, org: string, tenant: string) => `${surface}\u0000${org}\u0000${tenant}`;

/**
 * Scope matching. NB: llm_output is opt-in: a policy without `scope.surfaces` applies to every input surface but
 * not to the answer, unless it is a redact policy (which applies to llm_output only, and by default).
 */
export function inScope(doc: PolicyResource, scope: PolicyScope): boolean {
  const s = doc.spec.scope;
  if (s?.surfaces?.length) {
    if (!s.surfaces.includes(scope.surface)) return false;
  } else if ((scope.surface === LLM_OUTPUT_SURFACE) !== (doc.spec.action === 'redact')) {
    return false;
  }
  if (s?.tenants?.length && (scope.tenantId === undefined || !s.tenants.includes(scope.tenantId))) return false;
  if (
    s?.organizations?.length &&
    (scope.organizationId === undefined || !s.organizations.includes(scope.organizationId))
  )
    return false;
  return true;
}
