import { describe, expect, it } from 'vitest';
import { decodeLicenseKey, issueLicenseKey, verifyLicenseKey } from './licensekey.js';

const secret = 'test-signing-secret';
const now = new Date('2026-11-21T00:00:00Z');
const expiresAt = new Date('2027-06-30T23:59:59Z');
const key = issueLicenseKey({ tier: 'ENT', expiresAt, secret, random: '04217' });

describe('license keys', () => {
  it('have the reference form PREFIX-TIER-RANDOM-TIMESTAMP-HMAC', () => {
    expect(key).toMatch(/^STW-ENT-04217-[0-9a-z]+-[0-9A-Z]{5}$/);
    expect(key.split('-')[3]).toBe(Math.floor(expiresAt.getTime() / 1000).toString(36));
  });

  it('verify with the secret that signed them and carry tier, node limit and expiry', () => {
    expect(verifyLicenseKey(key, secret, now)).toMatchObject({ ok: true, tier: 'ENT', maxNodes: 50, expiresAt });
  });

  it('decode without the secret', () => {
    expect(decodeLicenseKey(key)).toMatchObject({ tier: 'ENT', tierName: 'Enterprise', expiresAt });
  });

  it.each([
    { name: 'a malformed key', k: 'not-a-key', code: 'INVALID_LICENSE_KEY', message: 'Invalid license key' },
    {
      name: 'an unknown tier',
      k: key.replace('-ENT-', '-GOLD-'),
      code: 'INVALID_LICENSE_KEY',
      message: 'Invalid license key',
    },
    {
      name: 'a trailing newline',
      k: `${key}\n`,
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
    },
    { name: 'a trailing space', k: `${key} `, code: 'LICENSE_VALIDATION_FAILED', message: 'License validation failed' },
    {
      name: 'a changed tier',
      k: key.replace('-ENT-', '-PLUS-'),
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
    },
    {
      name: 'a changed expiry',
      k: key.replace(/-([0-9a-z]+)-([0-9A-Z]{5})$/, (_m, _t, s) => `-${(9_999_999_999).toString(36)}-${s}`),
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
    },
    {
      name: 'another secret',
      k: issueLicenseKey({ tier: 'ENT', expiresAt, secret: 'other', random: '04217' }),
      code: 'LICENSE_VALIDATION_FAILED',
      message: 'License validation failed',
    },
  ])('reject $name', ({ k, code, message }) => {
    expect(verifyLicenseKey(k, secret, now)).toMatchObject({ ok: false, code, message });
  });

  it('reject an expired key', () => {
    const old = issueLicenseKey({ tier: 'PRO', expiresAt: new Date('2026-01-01T00:00:00Z'), secret });
    const r = verifyLicenseKey(old, secret, now);
    expect(r).toMatchObject({ ok: false, code: 'LICENSE_VALIDATION_FAILED' });
    expect(r.ok === false && r.reason).toContain('expired');
  });

  it('refuse to mint without a secret', () => {
    expect(() => issueLicenseKey({ tier: 'PRO', expiresAt, secret: '' })).toThrow('secret');
  });
});
