/**
 * `/api/v1/audit` (docs/audit-api.md): the audit log for people — its entries, filtered and paged through the
 * server; one entry with its metadata; and a window's requests, blocks, redactions, warnings and Steward-added
 * latency per bucket. Everything is read from the audit rows of the caller's organization, in its tenant scope
 * (runtime/auth/scope.ts), never from one process's memory. The text is what the row stores: masked at write unless
 * STEWARD_AUDIT_RAW_TEXT (the row's `stored_text` says which).
 */
import type { FastifyPluginAsync } from 'fastify';
import { auditEntriesQuery, auditSummaryQuery } from '../../../api/http/gateway.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import type { Identity } from '../../auth/identity.js';
import { identityOf } from '../../auth/plugin.js';
import { tenantFilter } from '../../auth/scope.js';
import { ApiError, echo } from '../../http/errors.js';
import type { AuditEntry, AuditScope } from '../../store/index.js';
import type { AuditRouteOptions } from '../deps.js';
import { parseQuery } from '../validation.js';

const AUTH = { config: { auth: { require: 'any', feature: 'audit' } as const } };

const scopeOf = (identity: Identity): AuditScope => ({
  organizationId: identity.organizationId,
  ...tenantFilter(identity),
});

export const auditReadRoutes: FastifyPluginAsync<AuditRouteOptions> = async (app, deps) => {
  app.get('/api/v1/audit/entries', AUTH, async (req) => {
    const q = parseQuery(auditEntriesQuery, req.query);
    const filter = {
      ...(q.decision !== undefined ? { decision: q.decision } : {}),
      ...(q.policy !== undefined ? { policy: q.policy } : {}),
      ...(q.surface !== undefined ? { surface: q.surface } : {}),
      ...(q.via !== undefined ? { via: q.via } : {}),
      ...(q.client !== undefined ? { client: q.client } : {}),
      ...(q.agent !== undefined ? { agent: q.agent } : {}),
      ...(q.from !== undefined ? { from: new Date(q.from) } : {}),
      ...(q.to !== undefined ? { to: new Date(q.to) } : {}),
    };
    try {
      const page = await deps.store.audit.search(scopeOf(identityOf(req)), filter, {
        limit: q.limit,
        ...(q.page_token !== undefined ? { pageToken: q.page_token } : {}),
      });
      return {
        entries: page.entries.map(view),
        ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
      };
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw new ApiError('gateway', 'INVALID_REQUEST', 'invalid field(s): page_token (not a token of this API)', {
        fields: [{ field: 'page_token', message: 'not a token of this API' }],
      });
    }
  });

  app.get<{ Params: { id: string } }>('/api/v1/audit/entries/:id', AUTH, async (req) => {
    const identity = identityOf(req);
    // NB: the same scope as the list: another organization's or tenant's row is answered as missing
    const e = await deps.store.audit.find(scopeOf(identity), req.params.id);
    if (!e) throw new ApiError('gateway', 'AUDIT_ENTRY_NOT_FOUND', `no audit entry ${echo(req.params.id)}`);
    return {
      ...view(e),
      ...(e.userToken !== undefined ? { user_token: e.userToken } : {}),
      ...(e.latencyMs !== undefined ? { latency_ms: e.latencyMs } : {}),
      ...(e.promptTokens !== undefined ? { prompt_tokens: e.promptTokens } : {}),
      ...(e.completionTokens !== undefined ? { completion_tokens: e.completionTokens } : {}),
      ...(e.totalTokens !== undefined ? { total_tokens: e.totalTokens } : {}),
      metadata: e.metadata ?? {},
    };
  });

  app.get('/api/v1/audit/summary', AUTH, async (req) => {
    const q = parseQuery(auditSummaryQuery, req.query);
    const s = await deps.store.audit.summary(scopeOf(identityOf(req)), q.window, deps.now());
    return {
      window: s.window,
      bucket_seconds: s.bucketSeconds,
      buckets: s.buckets.map((b) => ({
        start: isoTimestamp(b.start),
        requests: b.requests,
        blocks: b.blocks,
        redactions: b.redactions,
        warnings: b.warnings,
        p50_ms: b.p50Ms,
        p99_ms: b.p99Ms,
      })),
    };
  });
};

/** A metadata fact as the view states it: only of the type the writers give it (a caller's metadata may differ). */
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The policies that matched: what blocked (`policies`), then the others that matched (`policy_results`). */
function matched(m: Record<string, unknown>): string[] {
  const out = new Set<string>();
  if (Array.isArray(m.policies)) for (const p of m.policies) if (typeof p === 'string') out.add(p);
  if (Array.isArray(m.policy_results))
    for (const r of m.policy_results as unknown[]) {
      const p = (r as { policy?: unknown } | null)?.policy;
      if (typeof p === 'string') out.add(p);
    }
  return [...out];
}

/** One entry of the list: the columns and the metadata facts a table shows. */
function view(e: AuditEntry) {
  const m = e.metadata ?? {};
  const fields = {
    context_id: e.contextId ?? undefined,
    provider: e.provider,
    model: e.model,
    decision: str(m.decision),
    surface: str(m.surface),
    via: str(m.via),
    agent: str(m.agent),
    tenant_id: str(m.tenant_id),
    steward_ms: num(m.steward_ms),
    cost_usd: num(m.cost_usd),
    trace_id: str(m.trace_id),
    stored_text: m.stored_text === 'masked' || m.stored_text === 'raw' ? m.stored_text : undefined,
    prompt: e.prompt,
    response: e.response,
  };
  return {
    id: e.id,
    created_at: isoTimestamp(e.createdAt),
    client_id: e.clientId,
    // NB: absent facts are left out, not sent as null
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
    policies: matched(m),
  };
}
