import { describe, expect, it } from 'vitest';
import { decodeLicenseKey } from '../api/index.js';
import { issueCommand, LicenseCliError } from './license-cli.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const SECRET = 'test-signing-secret';

describe('issueCommand', () => {
  it('mints a key that expires at the end of the given day, UTC', () => {
    const key = issueCommand({ tier: 'ent', expires: '2027-06-30' }, SECRET, NOW);
    expect(decodeLicenseKey(key)).toMatchObject({ tier: 'ENT', expiresAt: new Date('2027-06-30T23:59:59Z') });
  });

  it('accepts today: a bare date runs to the end of the day', () => {
    expect(() => issueCommand({ tier: 'PRO', expires: '2026-06-15' }, SECRET, NOW)).not.toThrow();
  });

  it.each([
    { name: 'a day in the past', expires: '2026-06-14' },
    { name: 'a time earlier today', expires: '2026-06-15T11:59:59Z' },
    { name: 'the present instant', expires: '2026-06-15T12:00:00Z' },
  ])('refuses $name, saying the expiry is in the past', ({ expires }) => {
    expect(() => issueCommand({ tier: 'PRO', expires }, SECRET, NOW)).toThrow(LicenseCliError);
    expect(() => issueCommand({ tier: 'PRO', expires }, SECRET, NOW)).toThrow(`--expires ${expires} is in the past`);
  });

  it('checks the date before asking for a secret', () => {
    expect(() => issueCommand({ tier: 'PRO', expires: '2020-01-01' }, undefined, NOW)).toThrow(/in the past/);
  });
});
