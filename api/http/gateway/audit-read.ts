/** Reads of the audit log (`/api/v1/audit`, docs/audit-api.md): its entries, one entry, and a window's summary. */
import { z } from 'zod';
import { timestamp } from '../common.js';

/** Most entries of one page. */
export const AUDIT_PAGE_MAX = 200;
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_SUMMARY_WINDOWS = ['1h', '24h', '7d'] as const;

const filterText = (what: string) => z.string().min(1).max(256).optional().describe(what);
const instant = (what: string) => z.iso.datetime({ offset: true }).optional().describe(what);

export const auditEntriesQuery = z.object({
  decision: filterText(
    "the row's decision (allowed, redacted, blocked_input, blocked_output, warn, audit, exempted, refused, provider_error, approval_required, ...) or a connector row's own (blocked, failed, parked, ...)",
  ),
  policy: filterText('a policy that matched: it blocked, warned, was audited or was exempted (not merely evaluated)'),
  surface: filterText('llm, pre-check, plan, mcp, ...'),
  via: filterText('the route the call came through: execute, chat, anthropic, plan_step, a2a, mcp, ...'),
  client: filterText('the client id'),
  agent: filterText('the AgentConfig of a plan step or an A2A call'),
  from: instant('entries at or after this instant'),
  to: instant('entries before this instant'),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT).describe('entries per page'),
  page_token: z.string().min(1).max(512).optional().describe('next_page_token of the previous page'),
});

export const auditSummaryQuery = z.object({
  window: z.enum(AUDIT_SUMMARY_WINDOWS).default('1h').describe('1h: 1-minute buckets; 24h: 15-minute; 7d: 2-hour'),
});

export const auditEntry = z.object({
  id: z.string(),
  created_at: timestamp,
  client_id: z.string(),
  context_id: z.string().optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  decision: z.string().optional(),
  surface: z.string().optional(),
  via: z.string().optional(),
  agent: z.string().optional(),
  tenant_id: z.string().optional(),
  policies: z.array(z.string()).describe('the policies that matched (blocked, warned, audited, exempted)'),
  steward_ms: z.number().optional().describe("Steward's own added time"),
  cost_usd: z.number().optional(),
  trace_id: z.string().optional(),
  stored_text: z
    .enum(['masked', 'raw'])
    .optional()
    .describe('how the gateway stored the text (STEWARD_AUDIT_RAW_TEXT); absent on rows a caller sent'),
  prompt: z.string().optional(),
  response: z.string().optional(),
});

export const auditEntryList = z.object({
  entries: z.array(auditEntry),
  next_page_token: z.string().optional().describe('absent on the last page'),
});

export const auditEntryDetail = auditEntry.extend({
  user_token: z.string().optional(),
  latency_ms: z.number().optional(),
  prompt_tokens: z.number().int().optional(),
  completion_tokens: z.number().int().optional(),
  total_tokens: z.number().int().optional(),
  metadata: z.record(z.string(), z.unknown()).describe("the row's metadata as stored"),
});

export const auditSummary = z.object({
  window: z.enum(AUDIT_SUMMARY_WINDOWS),
  bucket_seconds: z.number().int(),
  buckets: z.array(
    z.object({
      start: timestamp,
      requests: z.number().int(),
      blocks: z.number().int(),
      redactions: z.number().int(),
      warnings: z.number().int(),
      p50_ms: z.number().nullable().describe("median of Steward's added time; null: no row of the bucket records it"),
      p99_ms: z.number().nullable(),
    }),
  ),
});
