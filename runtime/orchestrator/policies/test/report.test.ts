/**
 * `GET /api/v1/policies/{id}/report` through the orchestrator's app, with pre-checks sent to the gateway beside it
 * (one store, as in standalone): the same credentials and organization scoping as `GET /api/v1/policies/{id}`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyResource } from '../../../../api/index.js';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../../testing/gateway.js';
import type { Identity } from '../../../auth/identity.js';
import { ApiError } from '../../../http/errors.js';
import { PolicyReportTimeoutError, type PolicyReports } from '../../../policy/reports/index.js';
import { policyReportOf } from '../report.js';

const rego = (word: string) =>
  `package custom.no${word}\n\ndeny contains msg if {\n  contains(lower(input.query), "${word}")\n  msg := "no ${word}"\n}\n`;
const zero = { block: 0, warn: 0, log: 0, audit: 0, exempted: 0, redact: 0 };

let gw: TestGateway;
let app: FastifyInstance;

const as = (key: string, extra: Record<string, string> = {}) => ({ 'x-license-key': key, ...extra });
const report = (key: string, id: string, extra: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: `/api/v1/policies/${id}/report`, headers: as(key, extra) });
const preCheck = async (key: string, query: string, client = 'app', extra: Record<string, string> = {}) =>
  (
    await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: as(key, extra),
      payload: { client_id: client, user_token: 'u', query },
    })
  ).json() as { approved: boolean };

/** Changes the stored document as `kubectl edit` would: the API writes no enforcementAction or shadowOf. */
async function edit(resourceName: string, spec: Partial<PolicyResource['spec']>): Promise<void> {
  const doc = gw.source.get('Policy', resourceName)!;
  await gw.source.apply({ ...doc, spec: { ...doc.spec, ...spec } });
}

beforeAll(async () => {
  gw = await startTestGateway({ policyPack: false });
  app = (await startTestOrchestrator(gw)).app;
  for (const [name, word] of [
    ['no-banana', 'banana'],
    ['no-kiwi', 'kiwi'],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/policies',
      headers: as(gw.keys.acme),
      payload: { name, type: 'custom', priority: 10, rego: rego(word) },
    });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

describe('GET /api/v1/policies/{id}/report', () => {
  it("counts the organization's pre-checks: evaluations, blocks by client and tenant, in both windows", async () => {
    expect((await preCheck(gw.keys.acme, 'banana bread', 'app')).approved).toBe(false);
    expect((await preCheck(gw.keys.acme, 'banana split', 'app')).approved).toBe(false);
    expect((await preCheck(gw.keys.acme, 'banana milk', 'web', { 'x-tenant-id': 'team-a' })).approved).toBe(false);
    expect((await preCheck(gw.keys.acme, 'apple pie', 'web')).approved).toBe(true);
    // another organization's calls are its own, even of a policy of the same name
    expect((await preCheck(gw.keys.globex, 'banana bread', 'globex-app')).approved).toBe(true);

    const res = await report(gw.keys.acme, 'no-banana');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ policy: 'no-banana', resource_name: 'org-acme.no-banana', mode: 'enforce' });
    expect(body.shadow_of).toBeUndefined();
    for (const w of ['1h', '24h']) {
      expect(body.windows[w]).toMatchObject({
        evaluations: 4,
        matched: 3,
        violations: 3,
        decisions: { by_decision: { ...zero, block: 3 }, by_mode: { enforce: { ...zero, block: 3 } } },
        clients: [
          { client_id: 'app', count: 2 },
          { client_id: 'web', count: 1 },
        ],
        tenants: [{ tenant_id: 'team-a', count: 1 }],
      });
    }
    expect(Date.parse(body.windows['24h'].to) - Date.parse(body.windows['24h'].from)).toBe(86_400_000);
  });

  it("counts only the tenant's calls for a caller narrowed to a tenant", async () => {
    const res = await report(gw.keys.acme, 'no-banana', { 'x-tenant-id': 'team-a' });
    expect(res.json().windows['24h']).toMatchObject({ evaluations: 1, violations: 1 });
  });

  it('counts what an audited policy would have blocked as a violation, under the mode it ran in', async () => {
    await edit('org-acme.no-kiwi', { enforcementAction: 'audit' });
    expect((await preCheck(gw.keys.acme, 'kiwi jam')).approved).toBe(true);
    const body = (await report(gw.keys.acme, 'no-kiwi')).json();
    expect(body.mode).toBe('audit');
    expect(body.windows['1h']).toMatchObject({
      matched: 1,
      violations: 1,
      decisions: { by_decision: { ...zero, audit: 1 }, by_mode: { audit: { ...zero, audit: 1 }, enforce: zero } },
    });
  });

  it('shows a shadow policy where it and the policy it shadows disagree', async () => {
    await edit('org-acme.no-kiwi', { enforcementAction: 'audit', shadowOf: 'org-acme.no-banana' });
    // both match; only the shadowed one; only the shadow
    await preCheck(gw.keys.acme, 'banana kiwi');
    await preCheck(gw.keys.acme, 'banana');
    await preCheck(gw.keys.acme, 'kiwi');
    const body = (await report(gw.keys.acme, 'no-kiwi')).json();
    expect(body.shadow_of).toBe('org-acme.no-banana');
    // the earlier pre-checks evaluated both as well: 'kiwi jam' (shadow only), 'apple pie' and the bananas
    expect(body.windows['1h'].shadow).toMatchObject({
      shadow_of: 'org-acme.no-banana',
      matched_only_by_this: 2,
      matched_only_by_shadowed: 4,
      disagreements: 6,
    });
  });

  it("answers 404 POLICY_NOT_FOUND in the envelope for an unknown id and for another organization's policy", async () => {
    for (const res of [await report(gw.keys.acme, 'no-such-policy'), await report(gw.keys.globex, 'no-banana')]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'POLICY_NOT_FOUND' } });
    }
  });

  it('refuses a caller without credentials', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/policies/no-banana/report' });
    expect(res.statusCode).toBe(401);
  });

  it('answers 503 SERVICE_UNAVAILABLE naming the deadline when the count takes too long', async () => {
    const slow = {
      report: () => Promise.reject(new PolicyReportTimeoutError(10_000)),
    } as unknown as PolicyReports;
    const doc = gw.source.get('Policy', 'org-acme.no-banana')!;
    const err = await policyReportOf(slow, doc, { organizationId: 'acme' } as Identity, new Date()).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { timeout_ms: 10_000 } });
    expect(err.message).toContain('did not finish within 10000 ms');
  });
});
