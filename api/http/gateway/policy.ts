/**
 * The policy surfaces of the gateway: the pre-check, the audit row of a call the client made itself (the pair of
 * the pre-check-and-audit mode), and the dry-run of the policies.
 */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { int32, jsonObject, jsonValue, safeText } from '../safe.js';

export const preCheckRequest = z
  .object({
    client_id: safeText().min(1),
    user_token: safeText().min(1),
    query: safeText(),
    context: jsonObject().optional(),
    data_sources: z.array(jsonValue).optional(),
  })
  .catchall(jsonValue);

export const policyDecision = z.object({
  context_id: z.string(),
  approved: z.boolean(),
  policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  expires_at: timestamp,
});

/** The reference's and the SDKs' audit fields; both spellings are accepted. */
export const auditRequest = z
  .object({
    client_id: safeText().optional(),
    user_token: safeText().optional(),
    context_id: safeText().min(1),
    prompt: safeText().optional(),
    response: safeText().optional(),
    response_summary: safeText().optional(),
    provider: safeText().optional(),
    model: safeText().optional(),
    latency_ms: z.number().min(0).max(86_400_000).optional(),
    tokens: z.object({ prompt: int32(), completion: int32() }).partial().optional(),
    token_usage: z
      .object({ prompt_tokens: int32(), completion_tokens: int32(), total_tokens: int32() })
      .partial()
      .optional(),
    metadata: jsonObject().optional(),
  })
  .catchall(jsonValue);

export const auditResponse = z.object({
  success: z.literal(true),
  audit_id: z.string(),
  recorded: z.boolean(),
  timestamp,
});

export const policyTestRequest = z.object({ query: safeText(), context: jsonObject().optional() });
export const policyTestResponse = z.object({
  approved: z.boolean(),
  triggered_policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  evaluation_time_ms: z.number(),
});
