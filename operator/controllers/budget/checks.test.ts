import { describe, expect, it } from 'vitest';
import { budgetSpec } from '../../../api/budget.js';
import { budgetConditions, describe as describeBudget, type BudgetFacts } from './checks.js';

const spec = (s: Record<string, unknown>) => budgetSpec.parse(s);
const facts = (f: Partial<BudgetFacts> = {}): BudgetFacts => ({
  issues: [],
  timeZone: 'UTC',
  timeZoneKnown: true,
  spec: spec({ limit: { usd: 10 }, window: { period: 'month' } }),
  ...f,
});

describe('Budget conditions', () => {
  it.each([
    {
      name: 'sets Ready=True BudgetActive saying what the budget holds',
      f: facts(),
      ready: { status: 'True', reason: 'BudgetActive', message: 'refuses calls past $10 per month (UTC)' },
    },
    {
      name: 'sets Ready=False UnknownTimeZone naming the zone',
      f: facts({
        timeZone: 'Mars/Olympus',
        timeZoneKnown: false,
        spec: undefined,
        issues: [{ field: 'spec.window.timeZone', message: 'unknown time zone "Mars/Olympus"' }],
      }),
      ready: {
        status: 'False',
        reason: 'UnknownTimeZone',
        message: expect.stringMatching(/^spec\.window\.timeZone "Mars\/Olympus" is no IANA time zone/),
      },
    },
    {
      name: 'sets Ready=False InvalidSpec naming the field when the spec breaks a rule',
      f: facts({
        spec: undefined,
        issues: [{ field: 'spec.window', message: 'spec.window needs exactly one of period and hours' }],
      }),
      ready: {
        status: 'False',
        reason: 'InvalidSpec',
        message: 'spec.window needs exactly one of period and hours: the gateways skip this Budget',
      },
    },
  ])('$name', ({ f, ready }) => {
    const [c] = budgetConditions(f);
    expect(c).toMatchObject({ type: 'Ready', ...ready });
  });

  it.each([
    [
      { limit: { tokens: 5000 }, window: { hours: 24 }, action: 'warn' },
      'warns on calls past 5000 tokens in any 24 h (rolling)',
    ],
    [
      { limit: { usd: 2.5, tokens: 100 }, window: { period: 'week', timeZone: 'Europe/Lisbon' }, each: 'client' },
      'refuses calls past $2.5 or 100 tokens per week (Europe/Lisbon), per client',
    ],
  ])('describes %j', (s, text) => {
    expect(describeBudget(spec(s))).toBe(text);
  });
});
