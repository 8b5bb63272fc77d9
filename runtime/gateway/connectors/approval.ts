/**
 * Approvals of tool calls (docs/approvals.md): a call whose input an enforced policy answers `require_approval` is
 * parked, and its caller gets APPROVAL_REQUIRED with an approval id; a person with the `approver` role (not the
 * caller) approves or denies it; the caller retries the same call with the id, which runs it once. The approval is
 * bound to the hash of the exact call (connector, tool, RFC 8785 canonical arguments) and to the caller.
 */
import { canonicalDigest } from '../../audit/canonical.js';
import type { Identity } from '../../auth/identity.js';
import { principalOf } from '../../auth/roles.js';
import { ApiError } from '../../http/errors.js';
import type { PolicyEvaluation } from '../../policy/types.js';
import { redactValue } from '../../redact/index.js';
import type { ApprovalRecord, ApprovalRefusal } from '../../store/index.js';
import type { ConnectorRouteOptions } from '../deps.js';

/** The call an approval is for, as its hash reads it. */
export interface ApprovableCall {
  connector: string;
  tool: string;
  arguments: unknown;
}

/** SHA-256 (hex) of the RFC 8785 canonical call: what an approval is bound to. */
export function callHash(call: ApprovableCall): string {
  return canonicalDigest({ connector: call.connector, tool: call.tool, arguments: call.arguments ?? null }).toString(
    'hex',
  );
}

/** Where an approval is answered. */
export const approvalPath = (id: string) => `/api/approvals/${id}`;

const REFUSALS: Record<ApprovalRefusal, string> = {
  NOT_FOUND: 'no such approval in this organization',
  NOT_APPROVED: 'it has not been approved yet',
  DENIED: 'it was denied',
  USED: 'it was used already (an approval runs its call once)',
  EXPIRED: 'it has expired',
  OTHER_CALL: 'it was given for another call (the connector, tool or arguments differ)',
  OTHER_CALLER: 'it was given for another caller',
};

/**
 * The approval step of a call the input policies approved. With no `require_approval`, nothing. With one: the
 * presented approval is used (once) and its record returned, or the call is parked (a pending approval, the caller
 * told APPROVAL_REQUIRED). Refusals throw coded ApiErrors; the caller's audit writer records each outcome.
 */
export async function approvalStep(
  deps: Pick<ConnectorRouteOptions, 'store' | 'now' | 'approvalTtlMs'>,
  identity: Identity,
  call: ApprovableCall & { approvalId?: string },
  evaluation: PolicyEvaluation,
): Promise<{ used: ApprovalRecord } | { parked: ApprovalRecord } | undefined> {
  const approvals = evaluation.approvals;
  if (!approvals?.length) return undefined;
  const hash = callHash(call);
  const requestedBy = principalOf(identity);
  const now = deps.now();
  if (call.approvalId !== undefined) {
    const outcome = await deps.store.approvals.use(identity.organizationId, call.approvalId, {
      callHash: hash,
      requestedBy,
      now,
    });
    if (!('refusal' in outcome)) return { used: outcome.approval };
    throw new ApiError(
      'gateway',
      outcome.refusal === 'NOT_FOUND' ? 'APPROVAL_NOT_FOUND' : 'APPROVAL_NOT_USABLE',
      `approval ${call.approvalId.slice(0, 64)} cannot run this call: ${REFUSALS[outcome.refusal]}`,
      { approval_id: call.approvalId.slice(0, 64), reason: outcome.refusal },
    );
  }
  const parked = await deps.store.approvals.create({
    organizationId: identity.organizationId,
    tenantId: identity.tenantId,
    requestedBy,
    callHash: hash,
    connector: call.connector,
    tool: call.tool,
    // NB: approvers read what is asked, with what a detector finds masked.
    arguments: redactValue(call.arguments ?? null, {}),
    policies: approvals,
    now,
    ttlMs: deps.approvalTtlMs,
  });
  return { parked };
}

/** The answer to a parked call: APPROVAL_REQUIRED naming the approval, the policies and where to approve. */
export function approvalRequired(parked: ApprovalRecord): ApiError {
  const first = parked.policies[0]!;
  return new ApiError(
    'gateway',
    'APPROVAL_REQUIRED',
    `approval required by policy ${first.policy}: ${first.reasons[0] ?? 'a person must approve this call'}; ` +
      `approval ${parked.id} is pending: an approver answers POST ${approvalPath(parked.id)}, then retry the same ` +
      'call with approval_id',
    {
      approval_id: parked.id,
      policies: parked.policies.map((p) => p.policy),
      reasons: parked.policies.flatMap((p) => p.reasons),
      approve: approvalPath(parked.id),
      expires_at: parked.expiresAt.toISOString(),
    },
  );
}
