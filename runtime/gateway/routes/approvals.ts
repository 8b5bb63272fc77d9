/**
 * `/api/approvals` (docs/approvals.md): the approvals of tool calls a policy parked. An approver (an API key with the
 * `approver` role, or a license key) lists the organization's and answers them; any other caller sees its own. The
 * caller of a call never answers its own approval. Every decision is an audit row.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { APPROVAL_STATES, approvalDecision } from '../../../api/http/gateway.js';
import type { Identity } from '../../auth/identity.js';
import { identityOf } from '../../auth/plugin.js';
import { hasRole, principalOf } from '../../auth/roles.js';
import { ApiError, echo } from '../../http/errors.js';
import { redactText } from '../../redact/index.js';
import type { ApprovalRecord, Store } from '../../store/index.js';
import { parseBody } from '../validation.js';

export interface ApprovalRouteOptions {
  store: Pick<Store, 'approvals' | 'audit'>;
  now: () => Date;
}

const AUTH = { config: { auth: { require: 'any', feature: 'mcp' } as const } };
const MAX_LIST = 500;

const listQuery = z.object({
  state: z.enum(APPROVAL_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIST).default(100),
});

export const approvalRoutes: FastifyPluginAsync<ApprovalRouteOptions> = async (app, deps) => {
  app.get('/api/approvals', AUTH, async (req) => {
    const identity = identityOf(req);
    const q = listQuery.safeParse(req.query);
    if (!q.success)
      throw new ApiError(
        'gateway',
        'INVALID_REQUEST',
        'state must be one of ' + APPROVAL_STATES.join(', ') + '; limit 1 to 500',
      );
    const approvals = await deps.store.approvals.list(identity.organizationId, {
      ...(q.data.state ? { state: q.data.state } : {}),
      ...(identity.boundTenantId ? { tenantId: identity.boundTenantId } : {}),
      // NB: an approver sees the organization's; anyone else only the calls it made
      ...(hasRole(identity, 'approver') ? {} : { requestedBy: principalOf(identity) }),
      limit: q.data.limit,
      now: deps.now(),
    });
    return { approvals: approvals.map(view), count: approvals.length };
  });

  app.get<{ Params: { id: string } }>('/api/approvals/:id', AUTH, async (req) => {
    const identity = identityOf(req);
    const a = await visible(deps, identity, req.params.id);
    if (!hasRole(identity, 'approver') && a.requestedBy !== principalOf(identity)) throw notFound(req.params.id);
    return view(a);
  });

  app.post<{ Params: { id: string } }>('/api/approvals/:id', AUTH, async (req) => {
    const identity = identityOf(req);
    const body = parseBody(approvalDecision, req.body);
    if (!hasRole(identity, 'approver'))
      throw new ApiError(
        'gateway',
        'APPROVER_REQUIRED',
        'answering an approval needs an API key with the approver role (POST /api/clients with roles: ["approver"]) or a license key',
      );
    const current = await visible(deps, identity, req.params.id);
    const by = principalOf(identity);
    if (current.requestedBy === by)
      throw new ApiError(
        'gateway',
        'SELF_APPROVAL',
        `approval ${current.id} is for a call of yours: another approver must answer it`,
      );
    const approve = body.decision === 'approve';
    // NB: the comment is free text: kept as written for the approvers, masked in the audit row.
    const decided = await deps.store.approvals.decide(identity.organizationId, current.id, {
      approve,
      by,
      ...(body.comment !== undefined ? { comment: body.comment } : {}),
      now: deps.now(),
    });
    if (!decided)
      throw new ApiError(
        'gateway',
        'APPROVAL_NOT_PENDING',
        `approval ${current.id} is ${current.state}: only a pending one can be answered`,
        {
          approval_id: current.id,
          state: current.state,
        },
      );
    await deps.store.audit.record({
      organizationId: identity.organizationId,
      clientId: identity.clientId ?? identity.credential,
      contextId: null,
      metadata: {
        event: approve ? 'approval.approved' : 'approval.denied',
        governed: true,
        surface: 'mcp',
        decision: approve ? 'approved' : 'denied',
        approval: {
          id: decided.id,
          connector: decided.connector,
          tool: decided.tool,
          policies: decided.policies.map((p) => p.policy),
          requested_by: decided.requestedBy,
          decided_by: by,
          ...(body.comment ? { comment: redactText(body.comment, {}) } : {}),
        },
        ...(decided.tenantId ? { tenant_id: decided.tenantId } : {}),
      },
    });
    req.log.info({ approvalId: decided.id, approve, by }, 'approval answered');
    return view(decided);
  });
};

/** The approval, when the caller's organization (and bound tenant) has it. */
async function visible(deps: ApprovalRouteOptions, identity: Identity, id: string): Promise<ApprovalRecord> {
  const a = await deps.store.approvals.get(identity.organizationId, id.slice(0, 64), deps.now());
  if (!a || (identity.boundTenantId !== undefined && a.tenantId !== identity.boundTenantId)) throw notFound(id);
  return a;
}

const notFound = (id: string) => new ApiError('gateway', 'APPROVAL_NOT_FOUND', `no approval ${echo(id)}`);

function view(a: ApprovalRecord) {
  return {
    id: a.id,
    state: a.state,
    connector: a.connector,
    tool: a.tool,
    arguments: a.arguments,
    policies: a.policies.map((p) => ({ policy: p.policy, reasons: [...p.reasons] })),
    requested_by: a.requestedBy,
    ...(a.tenantId ? { tenant_id: a.tenantId } : {}),
    created_at: a.createdAt.toISOString(),
    expires_at: a.expiresAt.toISOString(),
    ...(a.decidedBy ? { decided_by: a.decidedBy } : {}),
    ...(a.decidedAt ? { decided_at: a.decidedAt.toISOString() } : {}),
    ...(a.comment ? { comment: a.comment } : {}),
    ...(a.usedAt ? { used_at: a.usedAt.toISOString() } : {}),
  };
}
