import { describe, expect, it } from 'vitest';
import { exceptionExpiryIssue, MAX_EXCEPTION_MS } from './policyexception.js';
import { validateManifest } from './validate.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const DAY_MS = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

const exception = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'PolicyException',
  metadata: { name: 'eu-pii', namespace: 'prod', ...metadata },
  spec: {
    policies: ['builtin-pii'],
    match: { tenants: ['eu'] },
    reason: 'SEC-42: EU support tickets quote customer emails',
    expiresAt: at(NOW.getTime() + 30 * DAY_MS),
    ...spec,
  },
});

const check = (doc: unknown) => validateManifest(doc, { now: NOW });

describe('PolicyException validation', () => {
  it('accepts an exception that expires within 90 days, defaulting permanent to false', () => {
    const r = check(exception({}));
    expect(r.errors).toEqual([]);
    expect(r.resource?.spec).toMatchObject({ permanent: false, policies: ['builtin-pii'] });
  });

  it.each([
    { name: 'an empty match', spec: { match: {} }, field: 'spec.match', message: /at least one field/ },
    { name: 'an empty match list', spec: { match: { tenants: [] } }, field: 'spec.match.tenants', message: /./ },
    { name: 'no policies', spec: { policies: [] }, field: 'spec.policies', message: /./ },
    {
      name: '65 policies',
      spec: { policies: Array.from({ length: 65 }, (_, i) => `p${i}`) },
      field: 'spec.policies',
      message: /./,
    },
    {
      name: 'a policy name that is no object name',
      spec: { policies: ['Builtin PII'] },
      field: 'spec.policies[0]',
      message: /RFC 1123/,
    },
    { name: 'a blank reason', spec: { reason: '   ' }, field: 'spec.reason', message: /blank/ },
    { name: 'a reason over 1024 characters', spec: { reason: 'x'.repeat(1025) }, field: 'spec.reason', message: /./ },
    { name: 'no reason', spec: { reason: undefined }, field: 'spec.reason', message: /./ },
    {
      name: 'an unknown surface',
      spec: { match: { surfaces: ['email'] } },
      field: 'spec.match.surfaces[0]',
      message: /./,
    },
    {
      name: 'an unknown match field',
      spec: { match: { namespaces: ['x'] } },
      field: 'spec.match.namespaces',
      message: /unknown/,
    },
    { name: 'a date without a time', spec: { expiresAt: '2026-03-10' }, field: 'spec.expiresAt', message: /./ },
    {
      name: 'no expiresAt without permanent',
      spec: { expiresAt: undefined },
      field: 'spec.expiresAt',
      message: /required unless spec.permanent is true/,
    },
    {
      name: 'an expiry more than 90 days ahead',
      spec: { expiresAt: at(NOW.getTime() + MAX_EXCEPTION_MS + 1000) },
      field: 'spec.expiresAt',
      message: /more than 90 days after now .*spec.permanent: true/,
    },
    {
      name: 'a new exception that has expired',
      spec: { expiresAt: at(NOW.getTime() - 1000) },
      field: 'spec.expiresAt',
      message: /has passed/,
    },
  ])('refuses $name, naming $field', ({ spec, field, message }) => {
    const r = check(exception(spec));
    expect(r.valid).toBe(false);
    expect(r.errors).toContainEqual({ field, message: expect.stringMatching(message) });
  });

  it('allows a permanent exception without expiresAt, or with one further than 90 days', () => {
    expect(check(exception({ permanent: true, expiresAt: undefined })).errors).toEqual([]);
    expect(check(exception({ permanent: true, expiresAt: at(NOW.getTime() + 400 * DAY_MS) })).errors).toEqual([]);
  });

  it('accepts exactly 90 days and an offset time', () => {
    expect(check(exception({ expiresAt: at(NOW.getTime() + MAX_EXCEPTION_MS) })).errors).toEqual([]);
    expect(check(exception({ expiresAt: '2026-03-02T09:00:00+02:00' })).errors).toEqual([]);
  });

  it("measures 90 days from an existing object's creation, so editing expiresAt cannot stretch it", () => {
    const created = at(NOW.getTime() - 60 * DAY_MS);
    const within = exception({ expiresAt: at(NOW.getTime() + 29 * DAY_MS) }, { creationTimestamp: created });
    expect(check(within).errors).toEqual([]);
    const stretched = exception({ expiresAt: at(NOW.getTime() + 31 * DAY_MS) }, { creationTimestamp: created });
    expect(check(stretched).errors).toEqual([
      { field: 'spec.expiresAt', message: expect.stringContaining(`after the object's creation (${created})`) },
    ]);
  });

  it('keeps an existing object that has expired valid (the runtimes and the operator judge expiry)', () => {
    const doc = exception(
      { expiresAt: at(NOW.getTime() - DAY_MS) },
      { creationTimestamp: at(NOW.getTime() - 10 * DAY_MS) },
    );
    expect(check(doc).errors).toEqual([]);
  });
});

describe('exceptionExpiryIssue', () => {
  it('is undefined for a permanent exception without expiry, whatever the clock', () => {
    expect(exceptionExpiryIssue({ permanent: true }, { now: NOW })).toBeUndefined();
  });

  it('takes the clock of the call for a document not created yet', () => {
    const spec = { expiresAt: at(NOW.getTime() + DAY_MS), permanent: false };
    expect(exceptionExpiryIssue(spec, { now: NOW })).toBeUndefined();
    expect(exceptionExpiryIssue(spec, { now: new Date(NOW.getTime() + 2 * DAY_MS) })?.message).toMatch(/has passed/);
  });
});
