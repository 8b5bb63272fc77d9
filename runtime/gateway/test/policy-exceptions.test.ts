import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

/**
 * A PolicyException (issue 34, item 2) through the pre-check: it exempts the tenant it names from `builtin-pii`,
 * that tenant only, until its `expiresAt` (a controllable clock: no restart, no timer).
 */
// NB: relative to the real time: the folder source refuses an exception that has expired, or runs over 90 days.
const EXPIRES = new Date(Math.floor(Date.now() / 1000) * 1000 + 30 * 86_400_000);
const EXCEPTION = `apiVersion: steward.dev/v1alpha1
kind: PolicyException
metadata: {name: research-pii, namespace: default}
spec:
  policies: [builtin-pii]
  match: {tenants: [research]}
  reason: the research team redacts its corpus itself (ticket SEC-42)
  expiresAt: "${EXPIRES.toISOString()}"
---
`;

let clock = new Date();
let gw: TestGateway;
let research: string;
let support: string;

beforeAll(async () => {
  gw = await startTestGateway({ manifests: EXCEPTION, now: () => clock });
  research = (await gw.store.clients.create({ organizationId: 'acme', tenantId: 'research', name: 'r' })).apiKey;
  support = (await gw.store.clients.create({ organizationId: 'acme', tenantId: 'support', name: 's' })).apiKey;
});
afterAll(async () => {
  await gw?.close();
});

const preCheck = (apiKey: string) =>
  gw.app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { client_id: 'app', user_token: 'u', query: 'My SSN is 287-65-4321' },
  });

describe('a PolicyException', () => {
  it('exempts the tenant it names', async () => {
    const res = await preCheck(research);
    expect(res.json()).toMatchObject({ approved: true });
  });

  it('does not exempt another tenant of the same organization', async () => {
    const res = await preCheck(support);
    expect(res.json()).toMatchObject({ approved: false, policies: ['builtin-pii'] });
  });

  it('stops applying at expiresAt, without a restart', async () => {
    clock = new Date(EXPIRES.getTime() - 1);
    expect((await preCheck(research)).json()).toMatchObject({ approved: true });
    clock = EXPIRES;
    expect((await preCheck(research)).json()).toMatchObject({ approved: false, policies: ['builtin-pii'] });
  });
});
