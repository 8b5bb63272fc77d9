import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../api/index.js';
import { ApiError } from '../http/errors.js';
import { FolderSource } from '../source/index.js';
import { openStore, type Store } from '../store/index.js';
import { resolveIdentity, type AuthDeps } from './authenticate.js';
import { LicenseRegistry } from './licenses.js';
import { licenseYaml } from '../../testing/gateway.js';

const secret = 'signing-secret-for-tests-0001';
const now = new Date('2026-11-21T12:00:00Z');
const acmeKey = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2027-06-30T00:00:00Z'), secret });
const proKey = issueLicenseKey({ tier: 'PRO', expiresAt: new Date('2027-06-30T00:00:00Z'), secret });
const expiredKey = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2026-01-01T00:00:00Z'), secret });
const unregisteredKey = issueLicenseKey({
  tier: 'ENT',
  expiresAt: new Date('2027-06-30T00:00:00Z'),
  secret,
  random: '99999',
});

let dir: string;
let store: Store;
let source: FolderSource;
let deps: AuthDeps;
let acmeApiKey: string;
let tenantApiKey: string;
let tenantClientId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-auth-'));
  await writeFile(
    join(dir, 'licenses.yaml'),
    licenseYaml('acme', 'acme', 'ACME_KEY') +
      licenseYaml('globex', 'globex', 'GLOBEX_KEY') +
      licenseYaml('old', 'initech', 'OLD_KEY'),
  );
  source = new FolderSource({ dirs: [dir], watch: false });
  await source.ready();
  store = await openStore({});
  const licenses = new LicenseRegistry({
    source,
    env: { ACME_KEY: acmeKey, GLOBEX_KEY: proKey, OLD_KEY: expiredKey },
    signingSecret: secret,
    now: () => now,
  });
  deps = {
    settings: {
      communityMode: 'auto',
      signingSecret: secret,
      legacySunset: new Date('2026-06-30T23:59:59Z'),
      legacyDeprecatedAt: new Date('2025-10-01T00:00:00Z'),
    },
    licenses,
    clients: store.clients,
    now: () => now,
  };
  acmeApiKey = (await store.clients.create({ organizationId: 'acme', name: 'web' })).apiKey;
  const t = await store.clients.create({ organizationId: 'acme', tenantId: 'eu', name: 'eu-app' });
  tenantApiKey = t.apiKey;
  tenantClientId = t.client.id;
});
afterAll(async () => {
  await store?.close();
  await source?.close();
  await rm(dir, { recursive: true, force: true });
});

async function codeOf(headers: Record<string, string>, d: AuthDeps = deps): Promise<string> {
  try {
    await resolveIdentity(headers, d);
    return 'OK';
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.code}`;
    throw err;
  }
}

describe('resolveIdentity in licensed mode', () => {
  it('maps a registered license key to its organization and tier', async () => {
    const { identity } = await resolveIdentity({ 'x-license-key': acmeKey }, deps);
    expect(identity).toMatchObject({ credential: 'license-key', organizationId: 'acme', tier: 'ENT' });
  });

  it('maps a bearer API key to its client, organization and the organization tier', async () => {
    const { identity } = await resolveIdentity({ authorization: `Bearer ${acmeApiKey}` }, deps);
    expect(identity).toMatchObject({
      credential: 'api-key',
      organizationId: 'acme',
      tier: 'ENT',
      clientId: expect.stringMatching(/^cli_/),
    });
  });

  it.each([
    {
      name: 'a license key as the Bearer value (the OpenAI SDK)',
      headers: () => ({ authorization: `Bearer ${acmeKey}` }),
      credential: 'license-key',
    },
    {
      name: 'a license key in x-api-key (the Anthropic SDK)',
      headers: () => ({ 'x-api-key': acmeKey }),
      credential: 'license-key',
    },
    {
      name: 'an API key in x-api-key (the Anthropic SDK)',
      headers: () => ({ 'x-api-key': acmeApiKey }),
      credential: 'api-key',
    },
  ])('accepts $name', async ({ headers, credential }) => {
    const { identity } = await resolveIdentity(headers(), deps);
    expect(identity).toMatchObject({ credential, organizationId: 'acme', tier: 'ENT' });
  });

  it('refuses an expired license key sent as the Bearer value as a license key, not as an unknown API key', async () => {
    expect(await codeOf({ authorization: `Bearer ${expiredKey}` })).toBe('401 LICENSE_VALIDATION_FAILED');
  });

  it('accepts Basic base64(clientId:secret) as the 2.2+ SDKs send it', async () => {
    const basic = Buffer.from(`${tenantClientId}:${tenantApiKey}`).toString('base64');
    const { identity } = await resolveIdentity({ authorization: `Basic ${basic}`, 'x-tenant-id': 'eu' }, deps);
    expect(identity).toMatchObject({ credential: 'basic', organizationId: 'acme', tenantId: 'eu' });
  });

  it('lets X-Tenant-ID narrow an organization-wide credential', async () => {
    const { identity } = await resolveIdentity({ 'x-license-key': acmeKey, 'x-tenant-id': 'us' }, deps);
    expect(identity.tenantId).toBe('us');
  });

  it.each([
    { name: 'no credentials', headers: {}, expected: '401 UNAUTHORIZED' },
    { name: 'a malformed license key', headers: { 'x-license-key': 'hello' }, expected: '401 INVALID_LICENSE_KEY' },
    {
      name: 'a license key with a trailing newline',
      headers: { 'x-license-key': `${acmeKey}\n` },
      expected: '401 LICENSE_VALIDATION_FAILED',
    },
    {
      name: 'an expired license key',
      headers: { 'x-license-key': expiredKey },
      expected: '401 LICENSE_VALIDATION_FAILED',
    },
    {
      name: 'a validly signed key no License holds',
      headers: { 'x-license-key': unregisteredKey },
      expected: '401 LICENSE_VALIDATION_FAILED',
    },
    {
      name: 'an unknown bearer key',
      headers: { authorization: 'Bearer client-x-prod-nope' },
      expected: '401 UNAUTHORIZED',
    },
    {
      name: 'Basic credentials whose client id does not match the key',
      headers: { authorization: `Basic ${Buffer.from('cli_other:x').toString('base64')}` },
      expected: '401 UNAUTHORIZED',
    },
    {
      name: 'legacy client secret after the sunset',
      headers: { 'x-client-secret': 'whatever' },
      expected: '401 LEGACY_CREDENTIALS_RETIRED',
    },
  ])('refuses $name with $expected', async ({ headers, expected }) => {
    expect(await codeOf(headers as Record<string, string>)).toBe(expected);
  });

  it('refuses a tenant-bound key asking for another tenant with 403', async () => {
    expect(await codeOf({ authorization: `Bearer ${tenantApiKey}`, 'x-tenant-id': 'us' })).toBe('403 FORBIDDEN');
  });

  it('accepts legacy credentials before the sunset with Deprecation and Sunset headers', async () => {
    const early: AuthDeps = { ...deps, now: () => new Date('2026-03-01T00:00:00Z') };
    const result = await resolveIdentity({ 'x-client-secret': acmeApiKey }, early);
    expect(result.identity).toMatchObject({ credential: 'legacy-client-secret', organizationId: 'acme' });
    expect(result.headers).toMatchObject({
      deprecation: expect.stringMatching(/^@\d+$/),
      sunset: 'Tue, 30 Jun 2026 23:59:59 GMT',
    });
  });
});

describe('resolveIdentity in community mode', () => {
  it('needs no credentials while no License is configured', async () => {
    const empty = new FolderSource({ dirs: [join(dir, 'none')], watch: false });
    await empty.ready();
    const community: AuthDeps = {
      ...deps,
      licenses: new LicenseRegistry({ source: empty, env: {}, signingSecret: secret, now: () => now }),
    };
    expect((await resolveIdentity({}, community)).identity).toMatchObject({
      credential: 'community',
      tier: 'COMMUNITY',
    });
    await empty.close();
  });

  it("admits a bearer value that is no known key (an SDK's placeholder) as the community identity, says so, and tells once", async () => {
    const empty = new FolderSource({ dirs: [join(dir, 'none')], watch: false });
    await empty.ready();
    let told = 0;
    const community: AuthDeps = {
      ...deps,
      licenses: new LicenseRegistry({ source: empty, env: {}, signingSecret: secret, now: () => now }),
      onUnknownBearer: () => told++,
    };
    for (const headers of [{ authorization: 'Bearer anything' }, { 'x-api-key': 'sk-ant-placeholder' }]) {
      const r = await resolveIdentity(headers, community);
      expect(r.identity).toMatchObject({ credential: 'community', tier: 'COMMUNITY' });
      expect(r.headers?.['x-steward-auth']).toContain('not a known key');
    }
    expect(told).toBe(1);
    // A known key is still checked: it is its client's, not the community's.
    expect((await resolveIdentity({ authorization: `Bearer ${acmeApiKey}` }, community)).identity).toMatchObject({
      credential: 'api-key',
      organizationId: 'acme',
    });
    await empty.close();
  });

  it('still refuses a revoked key in community mode, with its own code', async () => {
    const empty = new FolderSource({ dirs: [join(dir, 'none')], watch: false });
    await empty.ready();
    const community: AuthDeps = {
      ...deps,
      licenses: new LicenseRegistry({ source: empty, env: {}, signingSecret: secret, now: () => now }),
    };
    const { client, apiKey } = await store.clients.create({ organizationId: 'acme', name: 'to-revoke' });
    expect(await store.clients.revoke('acme', client.id)).toBe(true);
    expect(await codeOf({ authorization: `Bearer ${apiKey}` }, community)).toBe('401 API_KEY_REVOKED');
    await empty.close();
  });

  it('refuses an unknown bearer value outside community mode', async () => {
    expect(await codeOf({ authorization: 'Bearer anything' })).toBe('401 UNAUTHORIZED');
  });

  it('is never active when configured off, even without a License', async () => {
    const empty = new FolderSource({ dirs: [join(dir, 'none')], watch: false });
    await empty.ready();
    const off: AuthDeps = {
      ...deps,
      settings: { ...deps.settings, communityMode: false },
      licenses: new LicenseRegistry({ source: empty, env: {}, signingSecret: secret, now: () => now }),
    };
    expect(await codeOf({}, off)).toBe('401 UNAUTHORIZED');
    await empty.close();
  });
});
