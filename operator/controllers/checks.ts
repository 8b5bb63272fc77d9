/**
 * Judging, apart from gathering (STYLE.md habit 2): a readiness condition is an ordered list of pure checks,
 * each returning what is wrong (`{reason, message}`) or nothing; the first finding decides.
 */
import type { ConditionInput } from '../../api/conditions.js';

export interface Finding {
  reason: string;
  message: string;
}

export type Check<F> = (facts: F) => Finding | undefined;

/** The first finding of `checks`, or undefined when all pass. */
export function firstFinding<F>(facts: F, checks: readonly Check<F>[]): Finding | undefined {
  for (const check of checks) {
    const finding = check(facts);
    if (finding) return finding;
  }
  return undefined;
}

/**
 * A condition from checks: `status` is `whenFound` at the first finding, the opposite otherwise, with `ok` as
 * reason and message. For Ready a finding means False; for Degraded it means True.
 */
export function judge<F>(
  type: string,
  facts: F,
  checks: readonly Check<F>[],
  ok: Finding,
  whenFound: 'True' | 'False' = 'False',
): ConditionInput {
  const finding = firstFinding(facts, checks);
  if (finding) return { type, status: whenFound, ...finding };
  return { type, status: whenFound === 'False' ? 'True' : 'False', ...ok };
}

/** What a missing Secret or key reads as. */
export function secretProblem(
  ref: { name: string; key?: string },
  secret: { data?: Record<string, string> } | undefined,
): string | undefined {
  if (!secret) return `Secret ${ref.name} not found`;
  if (ref.key !== undefined && secret.data?.[ref.key] === undefined) return `Secret ${ref.name} has no key ${ref.key}`;
  return undefined;
}
