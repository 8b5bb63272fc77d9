/** Webhook registrations for plan events and their deliveries (`/api/v1/webhooks`). */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { safeText } from '../safe.js';

export const WEBHOOK_URL_MAX_CHARS = 2048;

export const webhookRegistration = z.object({
  url: z.string().min(1).max(WEBHOOK_URL_MAX_CHARS),
  events: z
    .array(z.enum(['plan.completed', 'plan.failed', 'step.completed', 'budget.threshold', 'budget.exceeded']))
    .min(1)
    .max(5),
  secret: safeText().min(1).max(256).optional(),
  active: z.boolean().optional(),
});

export const webhookUpdate = webhookRegistration.partial();

export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  tenant_id: z.string().optional().describe('the tenant whose plans it hears of; absent: organization-wide'),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  secret: z.string().optional().describe('the generated signing secret, returned once when the registration sent none'),
});

export const webhookList = z.object({ webhooks: z.array(webhook), total: z.number().int() });

export const webhookDeliveries = z.object({
  deliveries: z.array(
    z.object({
      id: z.string(),
      event: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      plan_id: z.string(),
      created_at: timestamp,
      next_attempt_at: timestamp,
      delivered_at: timestamp.optional(),
      last_error: z.string().optional(),
      response_status: z.number().int().optional(),
      attempt_log: z.array(
        z.object({
          attempt: z.number().int(),
          started_at: timestamp,
          duration_ms: z.number(),
          response_status: z.number().int().optional(),
          error: z.string().optional(),
        }),
      ),
    }),
  ),
  total: z.number().int(),
});
