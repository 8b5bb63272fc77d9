import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderSource } from '../source/index.js';
import { PolicyExceptions, type ExceptionCall } from './exceptions.js';

const DAY_MS = 86_400_000;
/** Every expiry of these tests, a week ahead of the real clock (the folder source refuses past ones). */
const EXPIRES = new Date(Math.floor((Date.now() + 7 * DAY_MS) / 1000) * 1000);
const BEFORE = new Date(EXPIRES.getTime() - 1);

const exception = (name: string, spec: Record<string, unknown>, namespace?: string) =>
  `${stringify({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'PolicyException',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { policies: ['builtin-pii'], reason: 'ticket SEC-1', expiresAt: EXPIRES.toISOString(), ...spec },
  })}---\n`;

const call = (c: Partial<ExceptionCall> = {}): ExceptionCall => ({ surface: 'llm', ...c });

let dir: string;
let source: FolderSource;
let exceptions: PolicyExceptions;

async function start(yaml: string, opts: { namespace?: string } = {}): Promise<PolicyExceptions> {
  await writeFile(join(dir, 'ex.yaml'), yaml);
  source = new FolderSource({ dirs: [dir], watch: false });
  await source.ready();
  expect(source.issues()).toEqual([]);
  exceptions = new PolicyExceptions({ source, now: () => BEFORE, packNamespace: opts.namespace });
  return exceptions;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-exceptions-'));
});
afterEach(async () => {
  exceptions?.close();
  await source?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('PolicyExceptions.exceptionFor', () => {
  it("exempts the named tenant's calls from the named policy only", async () => {
    const ex = await start(exception('eu-pii', { match: { tenants: ['eu'] } }));
    const pii = { name: 'builtin-pii', namespace: 'default' };
    expect(ex.exceptionFor(pii, call({ tenantId: 'eu' }), BEFORE)).toEqual({
      name: 'eu-pii',
      namespace: 'default',
      reason: 'ticket SEC-1',
    });
    expect(ex.exceptionFor(pii, call({ tenantId: 'us' }), BEFORE)).toBeUndefined();
    expect(ex.exceptionFor(pii, call(), BEFORE)).toBeUndefined();
    expect(ex.exceptionFor({ name: 'builtin-secrets', namespace: 'default' }, call({ tenantId: 'eu' }), BEFORE)).toBe(
      undefined,
    );
  });

  it('stops applying at expiresAt exactly, with no restart and no timer', async () => {
    const ex = await start(exception('eu-pii', { match: { tenants: ['eu'] } }));
    const pii = { name: 'builtin-pii' };
    expect(ex.exceptionFor(pii, call({ tenantId: 'eu' }), BEFORE)?.name).toBe('eu-pii');
    expect(ex.exceptionFor(pii, call({ tenantId: 'eu' }), EXPIRES)).toBeUndefined();
    expect(ex.exceptionFor(pii, call({ tenantId: 'eu' }), new Date(EXPIRES.getTime() + DAY_MS))).toBeUndefined();
    // The injected clock is the default.
    expect(ex.exceptionFor(pii, call({ tenantId: 'eu' }))?.name).toBe('eu-pii');
    expect(ex.active(EXPIRES)).toEqual([]);
  });

  it.each([
    {
      name: 'every list given must hold the value (AND across fields)',
      c: { tenantId: 'eu', surface: 'mcp' },
      hit: false,
    },
    { name: 'one value of a list is enough (OR within one)', c: { tenantId: 'apac', surface: 'llm' }, hit: true },
    { name: 'a field the call has no value for does not match', c: { surface: 'llm' }, hit: false },
    {
      name: 'fields the exception leaves out match anything',
      c: { tenantId: 'eu', clientId: 'x', agent: 'a' },
      hit: true,
    },
  ] as { name: string; c: Partial<ExceptionCall>; hit: boolean }[])('$name', async ({ c, hit }) => {
    const ex = await start(exception('two', { match: { tenants: ['eu', 'apac'], surfaces: ['llm', 'pre-check'] } }));
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call(c), BEFORE) !== undefined).toBe(hit);
  });

  it('matches organizations, clients, agents and connectors', async () => {
    const ex = await start(
      exception('narrow', {
        match: { organizations: ['acme'], clients: ['etl'], agents: ['travel'], connectors: ['bookings-db'] },
      }),
    );
    const all = {
      organizationId: 'acme',
      clientId: 'etl',
      agent: 'travel',
      connector: 'bookings-db',
      surface: 'mcp' as const,
    };
    const p = { name: 'builtin-pii' };
    expect(ex.exceptionFor(p, call(all), BEFORE)?.name).toBe('narrow');
    for (const field of ['organizationId', 'clientId', 'agent', 'connector'] as const)
      expect(ex.exceptionFor(p, call({ ...all, [field]: 'other' }), BEFORE), field).toBeUndefined();
  });

  it("applies only to policies of its own namespace; the pack's policies count as the runtime's namespace", async () => {
    const ex = await start(
      exception('team-a', { policies: ['custom', 'builtin-pii'], match: { surfaces: ['llm'] } }, 'team-a') +
        exception('gateway', { match: { surfaces: ['llm'] } }, 'steward'),
      { namespace: 'steward' },
    );
    expect(ex.exceptionFor({ name: 'custom', namespace: 'team-a' }, call(), BEFORE)?.name).toBe('team-a');
    expect(ex.exceptionFor({ name: 'custom', namespace: 'team-b' }, call(), BEFORE)).toBeUndefined();
    // A pack policy (no namespace) is the gateway namespace's: team-a's exception does not reach it.
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call(), BEFORE)?.name).toBe('gateway');
    expect(ex.exceptionFor({ name: 'builtin-pii', namespace: 'steward' }, call(), BEFORE)?.name).toBe('gateway');
  });

  it('returns the first of several by namespace and name, and a permanent one never expires', async () => {
    const ex = await start(
      exception('zz-permanent', { match: { surfaces: ['llm'] }, permanent: true, expiresAt: undefined }) +
        exception('aa-weekly', { match: { surfaces: ['llm'] } }),
    );
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call(), BEFORE)?.name).toBe('aa-weekly');
    const later = new Date(EXPIRES.getTime() + 365 * DAY_MS);
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call(), later)?.name).toBe('zz-permanent');
    expect(ex.active(later)).toEqual([
      { name: 'zz-permanent', namespace: 'default', reason: 'ticket SEC-1', policies: ['builtin-pii'] },
    ]);
  });

  it('sees a change of the source at the next lookup (the index is rebuilt once per change)', async () => {
    const ex = await start(exception('eu-pii', { match: { tenants: ['eu'] } }));
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'eu' }), BEFORE)?.name).toBe('eu-pii');
    const first = ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'eu' }), BEFORE);
    // Unchanged source: the very same object (no allocation per lookup).
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'eu' }), BEFORE)).toBe(first);

    await writeFile(join(dir, 'ex.yaml'), exception('eu-pii', { match: { tenants: ['us'] }, reason: 'moved' }));
    await source.reload();
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'eu' }), BEFORE)).toBeUndefined();
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'us' }), BEFORE)?.reason).toBe('moved');

    await rm(join(dir, 'ex.yaml'));
    await source.reload();
    expect(ex.empty).toBe(true);
    expect(ex.exceptionFor({ name: 'builtin-pii' }, call({ tenantId: 'us' }), BEFORE)).toBeUndefined();
  });

  it('lists the exceptions in force for /health', async () => {
    const ex = await start(exception('eu-pii', { match: { tenants: ['eu'] } }));
    expect(ex.active()).toEqual([
      {
        name: 'eu-pii',
        namespace: 'default',
        reason: 'ticket SEC-1',
        policies: ['builtin-pii'],
        expiresAt: EXPIRES.toISOString(),
      },
    ]);
  });
});
