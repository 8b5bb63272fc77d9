import { describe, expect, it } from 'vitest';
import { exceptionConditions, MAX_REQUEUE_MS, requeueAfterMs, type ExceptionFacts } from './checks.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const HOUR_MS = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

const facts = (f: Partial<ExceptionFacts> = {}): ExceptionFacts => ({
  issues: [],
  policies: ['builtin-pii'],
  expiresAt: at(NOW.getTime() + HOUR_MS),
  permanent: false,
  missingPolicies: [],
  now: NOW,
  ...f,
});

const byType = (f: ExceptionFacts) => Object.fromEntries(exceptionConditions(f).map((c) => [c.type, c]));

describe('PolicyException conditions', () => {
  it.each([
    {
      name: 'sets Ready=True ExceptionActive and Expired=False before expiresAt',
      f: facts(),
      ready: { status: 'True', reason: 'ExceptionActive' },
      expired: { status: 'False', reason: 'NotExpired' },
    },
    {
      name: 'sets Ready=False Expired and Expired=True at expiresAt exactly',
      f: facts({ expiresAt: at(NOW.getTime()) }),
      ready: { status: 'False', reason: 'Expired' },
      expired: { status: 'True', reason: 'Expired' },
    },
    {
      name: 'sets Ready=False InvalidSpec naming the field when the spec breaks a rule',
      f: facts({ issues: [{ field: 'spec.expiresAt', message: 'is more than 90 days after creation' }] }),
      ready: { status: 'False', reason: 'InvalidSpec', message: 'spec.expiresAt: is more than 90 days after creation' },
      expired: { status: 'False', reason: 'NotExpired' },
    },
    {
      name: 'keeps a permanent exception without expiresAt active',
      f: facts({ permanent: true, expiresAt: undefined }),
      ready: {
        status: 'True',
        reason: 'ExceptionActive',
        message: 'exempts matching calls from builtin-pii permanently',
      },
      expired: { status: 'False', message: 'permanent: never expires' },
    },
    {
      name: 'stays Ready when a named Policy is no object, and says so',
      f: facts({ policies: ['builtin-pii', 'custom'], missingPolicies: ['builtin-pii'] }),
      ready: {
        status: 'True',
        reason: 'ExceptionActive',
        message: expect.stringMatching(/from builtin-pii, custom until .*; no Policy builtin-pii in this namespace/),
      },
      expired: { status: 'False' },
    },
  ])('$name', ({ f, ready, expired }) => {
    const c = byType(f);
    expect(c.Ready).toMatchObject(ready);
    expect(c.Expired).toMatchObject(expired);
  });

  it('asks to look again at expiresAt, at most a day ahead, and never once expired or without expiry', () => {
    expect(requeueAfterMs(facts())).toBe(HOUR_MS);
    expect(requeueAfterMs(facts({ expiresAt: at(NOW.getTime() + 60 * 24 * HOUR_MS) }))).toBe(MAX_REQUEUE_MS);
    expect(requeueAfterMs(facts({ expiresAt: at(NOW.getTime()) }))).toBeUndefined();
    expect(requeueAfterMs(facts({ expiresAt: undefined, permanent: true }))).toBeUndefined();
  });
});
