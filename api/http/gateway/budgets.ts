/** The Budgets' spend and an organization's spend over time (`/api/v1/budgets`, `/api/v1/spend`; docs/budgets.md). */
import { z } from 'zod';
import { BUDGET_EACH, budgetScope } from '../../budget.js';
import { timestamp } from '../common.js';

/** The fields `GET /api/v1/spend` groups by. */
export const SPEND_GROUP_BY = ['organization', 'tenant', 'client', 'agent', 'model'] as const;
/** The most groups one spend answer lists (its total counts them all). */
export const MAX_SPEND_GROUPS = 1000;
/** The longest range one spend query covers. */
export const MAX_SPEND_RANGE_DAYS = 93;

const amount = z
  .object({
    usd: z.number().describe('US dollars, to the micro-dollar'),
    tokens: z.number().int().describe('prompt plus completion tokens'),
  })
  .describe('an amount in both units');

const limitAmount = z
  .object({
    usd: z.number().optional().describe('US dollars; absent: the budget has no money limit'),
    tokens: z.number().int().optional().describe('tokens; absent: the budget has no token limit'),
  })
  .describe('an amount in the units the limit names');

export const budgetStateView = z.object({
  name: z.string().describe('the Budget (metadata.name)'),
  namespace: z.string(),
  scope: budgetScope.describe('the calls it charges (spec.scope)'),
  each: z.enum(BUDGET_EACH).optional().describe('spec.each: a ledger per value of this field'),
  action: z.enum(['block', 'warn']),
  limit: limitAmount,
  window: z
    .object({
      period: z.enum(['day', 'week', 'month']).optional(),
      time_zone: z.string().optional().describe('the IANA zone of a calendar period'),
      hours: z.number().int().optional().describe('a rolling window of this many hours'),
    })
    .describe('spec.window'),
  window_start: timestamp.describe('the earliest instant the current window counts'),
  window_ends: timestamp.describe('when the current window resets'),
  spent: amount.describe("the window's settled spend (with each: the fullest ledger's)"),
  reserved: amount.describe('held by calls in flight'),
  remaining: limitAmount.describe('the limit less spent and reserved, never below 0'),
  ledgers: z.number().int().optional().describe('with each: how many values were charged in the window'),
  top: z
    .array(z.object({ value: z.string(), spent: amount, reserved: amount }))
    .max(10)
    .optional()
    .describe('with each: the ledgers that spent most (not shown to a tenant for values other than tenants)'),
});

export const budgetListResponse = z.object({
  budgets: z.array(budgetStateView),
  count: z.number().int(),
  generated_at: timestamp,
});

const spendFigures = z.object({
  requests: z.number().int().describe('model calls recorded'),
  tokens: z.number().int().describe('prompt plus completion tokens'),
  cost_usd: z.number().describe('US dollars of the calls that had a price'),
  unpriced_requests: z
    .number()
    .int()
    .describe('calls whose model had no price: their tokens count, their cost does not'),
});

export const spendResponse = z.object({
  group_by: z.enum(SPEND_GROUP_BY),
  from: timestamp,
  to: timestamp,
  groups: z
    .array(spendFigures.extend({ key: z.string().nullable().describe('the value; null: rows without one') }))
    .max(MAX_SPEND_GROUPS)
    .describe('by cost, then tokens, descending'),
  total: spendFigures,
  truncated: z.boolean().describe('whether groups past the first 1,000 were left out (the total counts them)'),
});
