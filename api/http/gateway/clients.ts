/** The organization's clients and their API keys (`/api/clients`). */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { safeText } from '../safe.js';

export const client = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tenant_id: z.string().optional().describe('the tenant the key is bound to; absent: organization-wide'),
  roles: z
    .array(z.string())
    .optional()
    .describe('what the key may do besides calling (`approver`: answer approvals); absent: none'),
  created_at: timestamp,
});
export const createClientRequest = z.object({
  name: safeText().min(1).max(128),
  description: safeText().max(1024).optional(),
  roles: z
    .array(z.enum(['approver']))
    .max(8)
    .optional()
    .describe('roles of the new key: `approver` answers approvals of tool calls (docs/approvals.md)'),
});
export const createClientResponse = client.extend({ api_key: z.string() });

export const revokeClientResponse = z.object({ success: z.literal(true), id: z.string(), revoked_at: z.string() });
