/** Approvals of parked tool calls (`/api/approvals`, docs/approvals.md). */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { safeText } from '../safe.js';

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'used', 'expired'] as const;

export const approval = z.object({
  id: z.string(),
  state: z.enum(APPROVAL_STATES),
  connector: z.string(),
  tool: z.string(),
  arguments: z.unknown().describe("the call's arguments, with what a detector finds masked"),
  policies: z.array(z.object({ policy: z.string(), reasons: z.array(z.string()) })),
  requested_by: z.string().describe('the caller: client:<id>, license:<organization> or community'),
  tenant_id: z.string().optional(),
  created_at: timestamp,
  expires_at: timestamp,
  decided_by: z.string().optional(),
  decided_at: timestamp.optional(),
  comment: z.string().optional(),
  used_at: timestamp.optional(),
});

export const approvalList = z.object({ approvals: z.array(approval), count: z.number().int() });

export const approvalDecision = z.object({
  decision: z.enum(['approve', 'deny']),
  comment: safeText().max(1024).optional(),
});
