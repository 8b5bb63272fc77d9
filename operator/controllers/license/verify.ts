/**
 * A License's status from its key: verified with api/licensekey.ts and the operator's signing secret. Pure;
 * the reconciler reads the key from the Secret and passes the clock.
 */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { decodeLicenseKey, verifyLicenseKey, type LicenseInfo } from '../../../api/licensekey.js';

/** Re-check at least this often, and never set a timer longer than Node allows. */
export const MAX_REQUEUE_MS = 24 * 3_600_000;
/** Re-check this long after the expiry, so that the key reads expired then. */
const EXPIRY_MARGIN_MS = 1000;

/** `status` fields the operator owns besides conditions; null clears a field in the merge patch. */
export interface LicenseVerdict {
  valid: boolean;
  tier: string | null;
  maxNodes: number | null;
  expiresAt: string | null;
  reason: string | null;
}

/** The key as read from the Secret, or why it could not be read. */
export type KeyLookup = { key: string } | { problem: string };

export function verdict(lookup: KeyLookup, signingSecret: string | undefined, now: Date): LicenseVerdict {
  const invalid = (reason: string, info?: LicenseInfo): LicenseVerdict => ({
    valid: false,
    tier: info?.tier ?? null,
    maxNodes: info?.maxNodes ?? null,
    expiresAt: info?.expiresAt.toISOString() ?? null,
    reason,
  });
  if ('problem' in lookup) return invalid(lookup.problem);
  if (!signingSecret) return invalid('no signing secret configured', decodeLicenseKey(lookup.key));
  const check = verifyLicenseKey(lookup.key, signingSecret, now);
  if (!check.ok) return invalid(check.reason, check.info);
  return {
    valid: true,
    tier: check.tier,
    maxNodes: check.maxNodes,
    expiresAt: check.expiresAt.toISOString(),
    reason: null,
  };
}

export function readyCondition(v: LicenseVerdict): ConditionInput {
  if (!v.valid)
    return {
      type: ConditionType.Ready,
      status: 'False',
      reason: Reason.LicenseInvalid,
      message: v.reason ?? 'invalid',
    };
  return {
    type: ConditionType.Ready,
    status: 'True',
    reason: Reason.LicenseValid,
    message: `${v.tier} license for ${v.maxNodes} nodes, expires ${v.expiresAt}`,
  };
}

/** When to look again: just after a valid key expires (at most a day ahead); never for an invalid one. */
export function requeueAfterMs(v: LicenseVerdict, now: Date): number | undefined {
  if (!v.valid || v.expiresAt === null) return undefined;
  return Math.min(Math.max(0, Date.parse(v.expiresAt) - now.getTime()) + EXPIRY_MARGIN_MS, MAX_REQUEUE_MS);
}
