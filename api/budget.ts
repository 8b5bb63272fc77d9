import { z } from 'zod';
import { resourceName } from './common.js';
import { conditionsField, observedGenerationField } from './conditions.js';
import { commonColumns, defineKind } from './kind.js';

/** A model's price in US dollars per million tokens (runtime/budgets/prices.ts). */
export const modelPrice = z
  .object({
    input: z.number().min(0).max(100_000).describe('USD per million input (prompt) tokens'),
    output: z.number().min(0).max(100_000).describe('USD per million output (completion) tokens'),
    cachedInput: z
      .number()
      .min(0)
      .max(100_000)
      .optional()
      .describe('USD per million cached input tokens; absent: input'),
  })
  .strict();
export type ModelPriceSpec = z.infer<typeof modelPrice>;

/** The longest rolling window: a year of hours. */
export const MAX_ROLLING_HOURS = 8760;
/** The most thresholds one Budget fires. */
const MAX_THRESHOLDS = 10;

const scopeValue = (what: string) => z.string().min(1).max(253).optional().describe(`${what}; absent: any`);

/**
 * Which calls a Budget charges: each field given must equal the call's value (a call without that value does not
 * match), and an empty scope matches every call. The identity fields come from the verified credential only.
 */
export const budgetScope = z
  .object({
    organization: scopeValue('the organization (License organizationId)'),
    tenant: scopeValue("the tenant (the credential's client organization)"),
    client: scopeValue('the API client id (an API key)'),
    agent: resourceName.optional().describe('the AgentConfig a plan step runs as; absent: any'),
    provider: scopeValue('the LLM provider (openai, anthropic, bedrock, ollama, ...)'),
    model: scopeValue('the model, as the provider names it'),
  })
  .strict()
  .default({})
  .describe("the calls charged: every field given must equal the call's (AND); empty: every call");
export type BudgetScope = z.infer<typeof budgetScope>;

/** The scope fields a Budget can keep a ledger per value of (`spec.each`). */
export const BUDGET_EACH = ['organization', 'tenant', 'client', 'agent', 'provider', 'model'] as const;

export const budgetLimit = z
  .object({
    usd: z
      .number()
      .positive()
      .max(1_000_000_000)
      .optional()
      .describe(
        'the most money the window may spend, in US dollars (prices: STEWARD_MODEL_PRICES and the built-in table)',
      ),
    tokens: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('the most tokens (prompt plus completion) the window may spend'),
  })
  .strict()
  .refine((l) => l.usd !== undefined || l.tokens !== undefined, { message: 'spec.limit needs usd, tokens or both' })
  .meta({ minProperties: 1 })
  .describe('usd and/or tokens; a call must fit every limit given');
export type BudgetLimit = z.infer<typeof budgetLimit>;

export const budgetWindow = z
  .object({
    period: z
      .enum(['day', 'week', 'month'])
      .optional()
      .describe('a calendar window: it resets at local midnight (day), Monday 00:00 (week) or the 1st 00:00 (month)'),
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .default('UTC')
      .describe('the IANA time zone of a calendar window (Europe/Lisbon, America/New_York, UTC)'),
    hours: z
      .number()
      .int()
      .min(1)
      .max(MAX_ROLLING_HOURS)
      .optional()
      .describe('a rolling window of the last N hours (counted in whole hours), instead of a period'),
  })
  .strict()
  .refine((w) => (w.period === undefined) !== (w.hours === undefined), {
    message: 'spec.window needs exactly one of period and hours',
  })
  .meta({
    'x-kubernetes-validations': [
      { rule: 'has(self.period) != has(self.hours)', message: 'spec.window needs exactly one of period and hours' },
    ],
  })
  .describe('when the spend resets: a calendar period in a time zone, or a rolling number of hours');
export type BudgetWindowSpec = z.infer<typeof budgetWindow>;

export const budgetSpec = z
  .object({
    scope: budgetScope,
    each: z
      .enum(BUDGET_EACH)
      .optional()
      .describe(
        'keep a separate ledger, with the same limit, for each value of this field (each client, each tenant...): a default budget per end-user',
      ),
    limit: budgetLimit,
    window: budgetWindow,
    action: z
      .enum(['block', 'warn'])
      .default('block')
      .describe(
        'block: a call the limit cannot hold is refused (429 BUDGET_EXCEEDED) before the spend; warn: it proceeds, with a warning',
      ),
    thresholds: z
      .array(z.number().int().min(1).max(100))
      .max(MAX_THRESHOLDS)
      .default([80, 100])
      .describe(
        'percentages of the limit that fire a Kubernetes Event and the budget.threshold webhook (100: budget.exceeded), once per window',
      ),
  })
  .strict()
  .describe(
    'desired state: which calls are charged, how much they may spend, over which window, and what happens past it',
  );
export type BudgetSpec = z.infer<typeof budgetSpec>;

const amount = z
  .object({
    usd: z.number().optional().describe('US dollars'),
    tokens: z.number().int().optional().describe('tokens'),
  })
  .strict();

export const budgetStatus = z
  .object({
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
    spent: amount.optional().describe("the current window's settled spend (with spec.each: the largest ledger's)"),
    reserved: amount.optional().describe('held by calls in flight, not settled yet'),
    remaining: amount.optional().describe('the limit less spent and reserved (never below 0)'),
    windowEnds: z.iso.datetime({ offset: true }).optional().describe('when the current window resets'),
    ledgers: z.number().int().min(0).optional().describe('with spec.each: how many values have spent in this window'),
    updatedAt: z.iso.datetime({ offset: true }).optional().describe('when a gateway last wrote this status'),
  })
  .strict()
  .describe("observed state: the window's spend, written by one gateway replica, rate-limited");

export const Budget = defineKind({
  kind: 'Budget',
  plural: 'budgets',
  singular: 'budget',
  shortNames: ['stwbudget'],
  description:
    'A spend limit in US dollars and/or tokens over a calendar or rolling window, enforced before the spend.',
  spec: budgetSpec,
  status: budgetStatus,
  printerColumns: [
    { name: 'Action', type: 'string', jsonPath: '.spec.action', description: 'block or warn' },
    { name: 'Limit-USD', type: 'number', jsonPath: '.spec.limit.usd', description: 'the limit in US dollars' },
    { name: 'Spent-USD', type: 'number', jsonPath: '.status.spent.usd', description: "the window's spend" },
    { name: 'Limit-Tokens', type: 'integer', jsonPath: '.spec.limit.tokens', description: 'the limit in tokens' },
    { name: 'Spent-Tokens', type: 'integer', jsonPath: '.status.spent.tokens', description: "the window's tokens" },
    { name: 'Reserved', type: 'integer', jsonPath: '.status.reserved.tokens', priority: 1 },
    // NB: a string, not a date: kubectl prints a date column as an age, and `<invalid>` for a time ahead.
    { name: 'Window-Ends', type: 'string', jsonPath: '.status.windowEnds', description: 'when the window resets' },
    commonColumns.ready,
    commonColumns.age,
    commonColumns.message,
  ],
});

/** Whether the runtime knows an IANA time zone (pure: the ICU data of the process). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** What the schema cannot say: a calendar window's time zone must be one the runtime knows. */
export function budgetTimeZoneIssue(spec: {
  window: { timeZone: string };
}): { field: string; message: string } | undefined {
  const zone = spec.window.timeZone;
  return isValidTimeZone(zone)
    ? undefined
    : {
        field: 'spec.window.timeZone',
        message: `unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Lisbon`,
      };
}
