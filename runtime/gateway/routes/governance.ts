/**
 * What the gateway tells a person about their organization (docs/console.md; the console's pages read them):
 * - `GET /api/v1/whoami`: the caller as its credential says;
 * - `GET /api/v1/governance/policies`: the Policies in force for the caller's organization (and tenant), each with
 *   its mode, its compiled state in this replica, and the last 24 hours' evaluations and violations, counted in the
 *   database (runtime/policy/reports) so that every replica's calls are in them;
 * - `GET /api/v1/governance/agents`: the pool by AgentConfig, its health and load from the orchestrator (which holds
 *   the pool) and the organization's last hour of calls to each agent from the audit rows.
 */
import type { FastifyPluginAsync } from 'fastify';
import { policyMode, type AgentConfigResource, type PolicyResource } from '../../../api/index.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import type { Identity } from '../../auth/identity.js';
import { identityOf } from '../../auth/plugin.js';
import { hasRole, principalOf, ROLES } from '../../auth/roles.js';
import { tenantFilter } from '../../auth/scope.js';
import { API_MANAGED } from '../../policy/packages.js';
import { PolicyReports, reportUnavailable } from '../../policy/reports/index.js';
import type { PolicyLoadState } from '../../policy/load.js';
import type { AgentLatency } from '../../store/index.js';
import { LABELS } from '../../../api/constants.js';
import type { GovernanceRouteOptions } from '../deps.js';
import { clientSignal } from './llm.js';

const AUTH = { config: { auth: { require: 'any' } as const } };
const HOUR_MS = 3_600_000;
/** The longest the agents page waits for the orchestrator's pool. */
const POOL_TIMEOUT_MS = 5000;
/** The built-in pack's documents carry this label (config/policies). */
const PACK_LABEL = 'steward.dev/pack';

/** Whether a Policy applies to the caller: its organizations and tenants name the caller's, or none. */
function inForceFor(doc: PolicyResource, identity: Identity): boolean {
  const scope = doc.spec.scope;
  const orgs = scope?.organizations;
  if (orgs?.length && !orgs.includes(identity.organizationId)) return false;
  const tenants = scope?.tenants;
  return !(identity.tenantId !== undefined && tenants?.length && !tenants.includes(identity.tenantId));
}

const originOf = (doc: PolicyResource) =>
  doc.metadata.labels?.[PACK_LABEL] === 'builtin'
    ? 'builtin'
    : doc.metadata.labels?.[LABELS.managedBy] === API_MANAGED
      ? 'dynamic'
      : 'resource';

function stateOf(doc: PolicyResource, load: PolicyLoadState | undefined) {
  if (doc.spec.enabled === false) return { state: 'disabled' as const };
  // NB: a Policy this replica has not compiled yet (it arrived since the last compile)
  if (!load) return { state: 'pending' as const };
  if (load.loaded) return { state: 'compiled' as const };
  return { state: load.fallback ? ('fallback' as const) : ('failed' as const), error: load.error };
}

export const governanceRoutes: FastifyPluginAsync<GovernanceRouteOptions> = async (app, deps) => {
  const reports = new PolicyReports(deps.store.db);

  app.get('/api/v1/whoami', AUTH, async (req) => {
    const identity = identityOf(req);
    return {
      credential: identity.credential,
      organization_id: identity.organizationId,
      ...(identity.tenantId !== undefined ? { tenant_id: identity.tenantId } : {}),
      tenant_bound: identity.boundTenantId !== undefined,
      ...(identity.clientId !== undefined ? { client_id: identity.clientId } : {}),
      tier: identity.tier,
      roles: ROLES.filter((r) => hasRole(identity, r)),
      principal: principalOf(identity),
    };
  });

  app.get('/api/v1/governance/policies', AUTH, async (req) => {
    const identity = identityOf(req);
    const now = deps.now();
    const docs = deps.source.list('Policy').filter((d) => inForceFor(d, identity));
    const loads = new Map(deps.policies.loadStates().map((s) => [`${s.namespace}/${s.name}`, s]));
    const counts = await reports
      .summaries(
        docs.map((d) => d.metadata.name),
        now,
        { organizationId: identity.organizationId, tenantId: identity.tenantId },
      )
      .catch((err: unknown) => {
        throw reportUnavailable('gateway', err);
      });
    const policies = docs
      .map((doc) => {
        const spec = doc.spec;
        const namespace = doc.metadata.namespace ?? 'default';
        const counted = counts.get(doc.metadata.name);
        return {
          name: doc.metadata.name,
          namespace,
          origin: originOf(doc),
          type: spec.type,
          kind: spec.wasm ? ('wasm' as const) : spec.redact ? ('redact' as const) : ('rego' as const),
          action: spec.action,
          mode: policyMode(spec.enforcementAction),
          enabled: spec.enabled !== false,
          surfaces: [...(spec.scope?.surfaces ?? [])],
          ...stateOf(doc, loads.get(`${namespace}/${doc.metadata.name}`)),
          evaluations_24h: counted?.last24h.evaluations ?? 0,
          violations_24h: counted?.last24h.violations ?? 0,
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { policies, count: policies.length, generated_at: isoTimestamp(now) };
  });

  app.get('/api/v1/governance/agents', AUTH, async (req, reply) => {
    const identity = identityOf(req);
    const now = deps.now();
    const signal = AbortSignal.any([clientSignal(reply), AbortSignal.timeout(POOL_TIMEOUT_MS)]);
    const [pool, latencies] = await Promise.all([
      poolOf(deps, identity, req.id, signal),
      deps.store.audit.agentLatencies(
        { organizationId: identity.organizationId, ...tenantFilter(identity) },
        new Date(now.getTime() - HOUR_MS),
        now,
      ),
    ]);
    const latency = new Map(latencies.map((l) => [l.agent, l]));
    const agents = deps.source
      .list('AgentConfig')
      .map((doc) => agentView(doc, pool.members, latency.get(doc.metadata.name)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      agents,
      count: agents.length,
      pool: pool.figures,
      ...(pool.error !== undefined ? { pool_error: pool.error } : {}),
      generated_at: isoTimestamp(now),
    };
  });
};

interface PoolMember {
  id: string;
  agent_config?: string;
  health: string;
  in_flight: number;
  max_in_flight: number;
  queries_processed: number;
}

interface PoolAnswer {
  figures: Record<string, number> | null;
  members: PoolMember[];
  error?: string;
}

/** The orchestrator's pool, asked as the caller; what went wrong instead, when it could not be asked. */
async function poolOf(
  deps: GovernanceRouteOptions,
  identity: Identity,
  requestId: string,
  signal: AbortSignal,
): Promise<PoolAnswer> {
  if (!deps.plans)
    return { figures: null, members: [], error: 'no orchestrator is configured (STEWARD_ORCHESTRATOR_URL)' };
  try {
    const answer = await deps.plans.pool(identity, requestId, signal);
    if (answer.status !== 200)
      return { figures: null, members: [], error: `the orchestrator answered ${answer.status}` };
    const body = answer.body as { pool?: Record<string, number>; members?: PoolMember[] };
    return { figures: body.pool ?? null, members: Array.isArray(body.members) ? body.members : [] };
  } catch (err) {
    return { figures: null, members: [], error: `the orchestrator could not be asked: ${(err as Error).message}` };
  }
}

function agentView(doc: AgentConfigResource, members: readonly PoolMember[], latency: AgentLatency | undefined) {
  const key = `${doc.metadata.namespace ?? 'default'}/${doc.metadata.name}`;
  const own = members.filter((m) => m.agent_config === key);
  const healthy = own.filter((m) => m.health === 'healthy');
  return {
    name: doc.metadata.name,
    namespace: doc.metadata.namespace ?? 'default',
    domain: doc.spec.domain,
    type: doc.spec.type,
    replicas: doc.spec.replicas,
    healthy: healthy.length,
    in_flight: own.reduce((n, m) => n + m.in_flight, 0),
    max_in_flight: healthy.reduce((n, m) => n + m.max_in_flight, 0),
    queries_processed: own.reduce((n, m) => n + m.queries_processed, 0),
    members: own,
    latency: { calls: latency?.calls ?? 0, p50_ms: latency?.p50Ms ?? null, p99_ms: latency?.p99Ms ?? null },
  };
}
