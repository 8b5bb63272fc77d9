import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LicenseTier } from './license.js';

/**
 * License keys: `<PREFIX>-{TIER}-{RANDOM}-{TIMESTAMP}-{HMAC}` (service reference, Authentication).
 *
 * - PREFIX `STW`; TIER `PRO` | `ENT` | `PLUS`; RANDOM five decimal digits;
 * - TIMESTAMP the expiry as Unix seconds in lower-case base36;
 * - HMAC five upper-case base36 characters: the first 32 bits of
 *   HMAC-SHA256(signing secret, "PREFIX-TIER-RANDOM-TIMESTAMP") modulo 36^5, zero-padded.
 *
 * NB: five base36 characters hold ~25.8 bits, a limit of the format the reference fixes. The gateway
 * therefore also requires the key to equal the one stored for a `License` document, so a guessed
 * signature alone opens nothing.
 *
 * Pure (no I/O) so that the operator and the runtimes share it.
 */
export const LICENSE_KEY_PREFIX = 'STW';

/** Node limits by tier; the reference gives 10 for Professional. */
export const TIER_MAX_NODES: Record<LicenseTier, number> = { PRO: 10, ENT: 50, PLUS: 500 };

const TIER_NAMES: Record<LicenseTier, string> = { PRO: 'Professional', ENT: 'Enterprise', PLUS: 'Enterprise Plus' };
const KEY_PATTERN = /^([A-Z]{2,8})-(PRO|ENT|PLUS)-(\d{5})-([0-9a-z]{1,11})-([0-9A-Z]{5})$/;
const SIG_MOD = 36 ** 5;

export interface LicenseInfo {
  tier: LicenseTier;
  tierName: string;
  maxNodes: number;
  expiresAt: Date;
  random: string;
}

export type LicenseCheck =
  | ({ ok: true } & LicenseInfo)
  | {
      ok: false;
      code: 'INVALID_LICENSE_KEY' | 'LICENSE_VALIDATION_FAILED';
      message: string;
      reason: string;
      info?: LicenseInfo;
    };

function signature(body: string, secret: string): string {
  const mac = createHmac('sha256', secret).update(body, 'utf8').digest();
  return (mac.readUInt32BE(0) % SIG_MOD).toString(36).toUpperCase().padStart(5, '0');
}

/** Mints a key. `random` is injectable for reproducible tests; it must be five digits. */
export function issueLicenseKey(input: {
  tier: LicenseTier;
  expiresAt: Date;
  secret: string;
  random?: string;
}): string {
  if (!input.secret) throw new Error('a signing secret is required');
  const random = input.random ?? String(Math.floor(Math.random() * 100_000)).padStart(5, '0');
  if (!/^\d{5}$/.test(random)) throw new Error('random must be five digits');
  const seconds = Math.floor(input.expiresAt.getTime() / 1000);
  if (!(seconds > 0)) throw new Error('expiresAt must be a valid date after 1970');
  const body = `${LICENSE_KEY_PREFIX}-${input.tier}-${random}-${seconds.toString(36)}`;
  return `${body}-${signature(body, input.secret)}`;
}

/** Reads a key's parts without checking the signature (for `steward license inspect`). */
export function decodeLicenseKey(key: string): LicenseInfo | undefined {
  const m = KEY_PATTERN.exec(key.trim());
  if (!m) return undefined;
  const tier = m[2] as LicenseTier;
  const seconds = parseInt(m[4]!, 36);
  return {
    tier,
    tierName: TIER_NAMES[tier],
    maxNodes: TIER_MAX_NODES[tier],
    expiresAt: new Date(seconds * 1000),
    random: m[3]!,
  };
}

/**
 * Verifies format, signature (constant time) and expiry. Trailing spaces or newlines make the signature
 * check fail, as the reference says, rather than being trimmed.
 */
export function verifyLicenseKey(key: string, secret: string, now: Date): LicenseCheck {
  const m = KEY_PATTERN.exec(key);
  if (!m) {
    const info = decodeLicenseKey(key);
    if (info)
      return {
        ok: false,
        code: 'LICENSE_VALIDATION_FAILED',
        message: 'License validation failed',
        reason: 'signature check failed (the key has surrounding whitespace)',
        info,
      };
    return {
      ok: false,
      code: 'INVALID_LICENSE_KEY',
      message: 'Invalid license key',
      reason: 'the key does not have the form PREFIX-TIER-RANDOM-TIMESTAMP-HMAC',
    };
  }
  const info = decodeLicenseKey(key)!;
  const expected = Buffer.from(signature(key.slice(0, key.length - 6), secret));
  const given = Buffer.from(m[5]!);
  if (!secret || !timingSafeEqual(expected, given)) {
    return {
      ok: false,
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
      reason: 'signature check failed',
      info,
    };
  }
  if (info.expiresAt.getTime() <= now.getTime()) {
    return {
      ok: false,
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
      reason: `the license expired at ${info.expiresAt.toISOString()}`,
      info,
    };
  }
  return { ok: true, ...info };
}
