import { readFileSync } from 'node:fs';
import { decodeLicenseKey, issueLicenseKey, licenseTier, verifyLicenseKey } from '../api/index.js';

export class LicenseCliError extends Error {
  override name = 'LicenseCliError';
}

/** The signing secret: --secret-file wins over STEWARD_LICENSE_SIGNING_SECRET; never a command-line value (shell history). */
export function signingSecret(env: Record<string, string | undefined>, secretFile?: string): string | undefined {
  if (secretFile) return readFileSync(secretFile, 'utf8').replace(/\r?\n$/, '');
  return env.STEWARD_LICENSE_SIGNING_SECRET || undefined;
}

/** Mints a key; refuses an expiry that is not after `now` (such a key would be refused by every runtime). */
export function issueCommand(opts: { tier: string; expires: string }, secret: string | undefined, now: Date): string {
  const tier = licenseTier.safeParse(opts.tier.toUpperCase());
  if (!tier.success) throw new LicenseCliError(`--tier must be one of ${licenseTier.options.join(', ')}`);
  if (!/^\d{4}-\d{2}-\d{2}(T.*)?$/.test(opts.expires))
    throw new LicenseCliError('--expires must be a date such as 2027-06-30');
  // A bare date means the end of that day, UTC.
  const expiresAt = new Date(opts.expires.length === 10 ? `${opts.expires}T23:59:59Z` : opts.expires);
  if (Number.isNaN(expiresAt.getTime())) throw new LicenseCliError(`--expires ${opts.expires} is not a valid date`);
  if (expiresAt <= now) {
    throw new LicenseCliError(
      `--expires ${opts.expires} is in the past (${expiresAt.toISOString()}); a key that has already expired would be refused everywhere, so choose a later date`,
    );
  }
  if (!secret) throw new LicenseCliError('no signing secret: set STEWARD_LICENSE_SIGNING_SECRET or pass --secret-file');
  return issueLicenseKey({ tier: tier.data, expiresAt, secret });
}

export function inspectCommand(key: string, secret: string | undefined, now: Date): { text: string; ok: boolean } {
  const info = decodeLicenseKey(key);
  if (!info)
    return { text: 'Invalid license key: the key does not have the form PREFIX-TIER-RANDOM-TIMESTAMP-HMAC', ok: false };
  const lines = [
    `tier:       ${info.tier} (${info.tierName})`,
    `max nodes:  ${info.maxNodes}`,
    `expires at: ${info.expiresAt.toISOString()}${info.expiresAt <= now ? ' (expired)' : ''}`,
  ];
  if (!secret) {
    lines.push('signature:  not checked (no signing secret given)');
    return { text: lines.join('\n'), ok: true };
  }
  const check = verifyLicenseKey(key, secret, now);
  lines.push(check.ok ? 'signature:  valid' : `signature:  ${check.message}: ${check.reason}`);
  return { text: lines.join('\n'), ok: check.ok };
}
