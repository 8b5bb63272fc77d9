/**
 * The Budget's `Ready` condition, judged from gathered facts (pure): True when the runtimes will load it (every
 * gateway validates a Budget as the operator does, and skips one that fails), with a message saying what it holds.
 */
import type { BudgetSpec } from '../../../api/budget.js';
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { judge, type Check } from '../checks.js';

/** Where a time zone problem is reported (api/budget.ts `budgetTimeZoneIssue`). */
const ZONE_FIELD = 'spec.window.timeZone';

export interface BudgetFacts {
  /** What api/validate.ts finds wrong with the object (schema and cross-field rules), field first. */
  issues: readonly { field: string; message: string }[];
  /** `spec.window.timeZone` as given (UTC when absent). */
  timeZone: string;
  /** Whether the runtime knows that zone (`isValidTimeZone`). */
  timeZoneKnown: boolean;
  /** The spec with its defaults, when it is valid. */
  spec?: BudgetSpec;
}

export const timeZoneKnown: Check<BudgetFacts> = (f) =>
  f.timeZoneKnown
    ? undefined
    : {
        reason: Reason.UnknownTimeZone,
        message: `${ZONE_FIELD} ${JSON.stringify(f.timeZone)} is no IANA time zone (use a name such as Europe/Lisbon or UTC): the gateways skip this Budget`,
      };

export const specValid: Check<BudgetFacts> = (f) => {
  // NB: the zone's own issue is the check above's; the others (schema, window) are this one's.
  const issues = f.issues.filter((i) => i.field !== ZONE_FIELD || f.timeZoneKnown);
  return issues.length
    ? {
        reason: Reason.InvalidSpec,
        message: `${issues.map((i) => (i.message.startsWith(i.field) ? i.message : `${i.field}: ${i.message}`)).join('; ')}: the gateways skip this Budget`,
      }
    : undefined;
};

/** `Ready`: the first problem, or what the Budget holds. */
export function budgetConditions(f: BudgetFacts): ConditionInput[] {
  return [
    judge(ConditionType.Ready, f, [timeZoneKnown, specValid], {
      reason: Reason.BudgetActive,
      message: f.spec ? describe(f.spec) : 'the gateways charge the calls it matches',
    }),
  ];
}

/** "blocks calls past $10 or 100000 tokens per month (Europe/Lisbon), per client". */
export function describe(spec: BudgetSpec): string {
  const { limit, window, action, each } = spec;
  const amounts = [
    ...(limit.usd === undefined ? [] : [`$${limit.usd}`]),
    ...(limit.tokens === undefined ? [] : [`${limit.tokens} tokens`]),
  ].join(' or ');
  const per =
    window.hours !== undefined
      ? `in any ${window.hours} h (rolling)`
      : `per ${window.period ?? 'period'} (${window.timeZone})`;
  const verb = action === 'block' ? 'refuses calls past' : 'warns on calls past';
  return `${verb} ${amounts} ${per}${each === undefined ? '' : `, per ${each}`}`;
}
