/**
 * The PolicyException's conditions, judged from gathered facts (pure): `Ready` (valid and not expired) and
 * `Expired` (expiresAt has passed), and when to look again so that both flip at the expiry.
 */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { judge, type Check } from '../checks.js';

/** Look again at least this often (a far expiry), and never set a timer longer than Node allows. */
export const MAX_REQUEUE_MS = 24 * 3_600_000;
/** How many names a message lists before "and N more". */
const MAX_LISTED = 10;

export interface ExceptionFacts {
  /** What api/validate.ts finds wrong with the object (schema and cross-field rules), field first. */
  issues: readonly { field: string; message: string }[];
  policies: readonly string[];
  /** `spec.expiresAt`, when set. */
  expiresAt?: string;
  permanent: boolean;
  /** Names of `spec.policies` that are no Policy object of the namespace (the built-in pack's are none). */
  missingPolicies: readonly string[];
  now: Date;
}

const expiryMs = (f: ExceptionFacts) => (f.expiresAt === undefined ? Number.NaN : Date.parse(f.expiresAt));

/** True once the clock reached expiresAt; never for a permanent exception without one. */
export const isExpired = (f: ExceptionFacts): boolean => f.now.getTime() >= expiryMs(f);

const listed = (names: readonly string[]) =>
  names.length > MAX_LISTED
    ? `${names.slice(0, MAX_LISTED).join(', ')} and ${names.length - MAX_LISTED} more`
    : names.join(', ');

export const specValid: Check<ExceptionFacts> = (f) =>
  f.issues.length
    ? {
        reason: Reason.InvalidSpec,
        // NB: the cross-field rules' messages start with their field already.
        message: f.issues
          .map((i) => (i.message.startsWith(i.field) ? i.message : `${i.field}: ${i.message}`))
          .join('; '),
      }
    : undefined;

export const notExpired: Check<ExceptionFacts> = (f) =>
  isExpired(f)
    ? { reason: Reason.Expired, message: `expired at ${f.expiresAt}: it exempts no call any more` }
    : undefined;

/**
 * `Ready` and `Expired`. NB: a named Policy that is no object of the namespace is no reason for Ready=False, since the
 * built-in pack's policies are not objects: the message says so, as a warning.
 */
export function exceptionConditions(f: ExceptionFacts): ConditionInput[] {
  const until = f.expiresAt === undefined ? 'permanently' : `until ${f.expiresAt}`;
  const missing = f.missingPolicies.length
    ? `; no Policy ${listed(f.missingPolicies)} in this namespace (fine for the built-in pack's, which are not objects)`
    : '';
  const ready = judge(ConditionType.Ready, f, [specValid, notExpired], {
    reason: Reason.ExceptionActive,
    message: `exempts matching calls from ${listed(f.policies)} ${until}${missing}`,
  });
  const expired: ConditionInput = isExpired(f)
    ? { type: ConditionType.Expired, status: 'True', reason: Reason.Expired, message: `expired at ${f.expiresAt}` }
    : {
        type: ConditionType.Expired,
        status: 'False',
        reason: Reason.NotExpired,
        message: f.expiresAt === undefined ? 'permanent: never expires' : `expires at ${f.expiresAt}`,
      };
  return [ready, expired];
}

/** When to reconcile again: at the expiry (at most a day ahead, then again); never once expired or without one. */
export function requeueAfterMs(f: ExceptionFacts): number | undefined {
  const left = expiryMs(f) - f.now.getTime();
  if (!(left > 0)) return undefined;
  // NB: the work queue's timer fires no earlier than asked, so the next reconcile sees the exception expired.
  return Math.min(left, MAX_REQUEUE_MS);
}
