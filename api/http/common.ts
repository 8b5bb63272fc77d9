import { z } from 'zod';

export const timestamp = z.string().describe('RFC 3339 UTC timestamp');

/** Agent-style failure body: `{success: false, error: "..."}` plus a code (clients parse the body first). */
export const agentError = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string(),
  request_id: z.string().optional(),
});

/** Envelope-style failure body: `{success: false, error: {code, message}}`. */
export const envelopeError = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    request_id: z.string().optional(),
    timestamp: timestamp.optional(),
  }),
});

export const fieldIssue = z.object({ field: z.string(), message: z.string() });

export const validationResult = z.object({
  valid: z.boolean(),
  errors: z.array(fieldIssue),
  warnings: z.array(fieldIssue),
});
