import { describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../../api/licensekey.js';
import { MAX_REQUEUE_MS, readyCondition, requeueAfterMs, verdict } from './verify.js';

const secret = 'signing-secret-0123456789';
const now = new Date('2026-06-01T00:00:00Z');
const key = issueLicenseKey({ tier: 'PRO', expiresAt: new Date('2026-06-02T00:00:00Z'), secret, random: '12345' });

describe('verdict', () => {
  it.each([
    {
      name: 'accepts a key signed with the secret before its expiry',
      lookup: { key },
      s: secret,
      at: now,
      want: { valid: true, tier: 'PRO', maxNodes: 10, expiresAt: '2026-06-02T00:00:00.000Z', reason: null },
    },
    {
      name: 'refuses every key without a signing secret',
      lookup: { key },
      s: undefined,
      at: now,
      want: { valid: false, reason: 'no signing secret configured' },
    },
    {
      name: 'refuses a key signed with another secret',
      lookup: { key },
      s: 'another-secret-0123456789',
      at: now,
      want: { valid: false, reason: 'signature check failed' },
    },
    {
      name: 'refuses an expired key',
      lookup: { key },
      s: secret,
      at: new Date('2026-06-03T00:00:00Z'),
      want: { valid: false, reason: 'the license expired at 2026-06-02T00:00:00.000Z', maxNodes: 10 },
    },
    {
      name: 'refuses when the Secret is missing',
      lookup: { problem: 'Secret k not found' },
      s: secret,
      at: now,
      want: { valid: false, reason: 'Secret k not found', tier: null },
    },
  ])('$name', ({ lookup, s, at, want }) => expect(verdict(lookup, s, at)).toMatchObject(want));
});

describe('readiness and requeue', () => {
  it('is Ready with LicenseValid for a valid key and LicenseInvalid otherwise', () => {
    expect(readyCondition(verdict({ key }, secret, now))).toMatchObject({ status: 'True', reason: 'LicenseValid' });
    expect(readyCondition(verdict({ key }, undefined, now))).toMatchObject({
      status: 'False',
      reason: 'LicenseInvalid',
      message: 'no signing secret configured',
    });
  });

  it.each([
    {
      name: 'requeues just after the expiry of a valid key',
      at: new Date('2026-06-01T23:00:00Z'),
      want: 3_600_000 + 1000,
    },
    { name: 'requeues at most a day ahead', at: new Date('2026-05-01T00:00:00Z'), want: MAX_REQUEUE_MS },
  ])('$name', ({ at, want }) => expect(requeueAfterMs(verdict({ key }, secret, at), at)).toBe(want));

  it('does not requeue an invalid key', () => {
    expect(requeueAfterMs(verdict({ key }, undefined, now), now)).toBeUndefined();
  });
});
