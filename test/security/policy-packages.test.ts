import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../testing/gateway.js';

/**
 * Found by the black-box re-run of issue 30's attacks: a dynamic policy could declare another policy's Rego
 * package (or one nested in or around it). Modules of one package merge in a scope's plan, so a tenant-bound key
 * could turn a helper of the built-in pack true for its tenant, or make every later compile of the scope (and
 * every restart) fail. The API refuses such a policy, and the engine drops the less trusted of two that meet.
 */
const SECRET = 'deploy with sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gH3k please';

const policy = (name: string, rego: string) => ({ name, type: 'custom', priority: 100, enabled: true, rego });

describe('dynamic policies and the packages of other policies (built-in pack loaded)', () => {
  let gw: TestGateway;
  let orchestrator: FastifyInstance;
  let t9Key: string;

  beforeAll(async () => {
    gw = await startTestGateway({ env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000' } });
    orchestrator = (await startTestOrchestrator(gw)).app;
    const minted = await gw.app.inject({
      method: 'POST',
      url: '/api/clients',
      headers: { 'x-license-key': gw.keys.globex, 'x-tenant-id': 't9' },
      payload: { name: 'tenant-app' },
    });
    t9Key = minted.json().api_key;
  });
  afterAll(async () => {
    await orchestrator?.close();
    await gw?.close();
  });

  const post = (headers: Record<string, string>, body: Record<string, unknown>) =>
    orchestrator.inject({ method: 'POST', url: '/api/v1/policies', headers, payload: body });
  const precheck = (headers: Record<string, string>, query: string) =>
    gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers,
      payload: { client_id: 'app', user_token: 'u', query },
    });

  it("refuses a tenant key's policy in package steward.builtin, and another organization's next policy still works", async () => {
    const res = await post(
      { authorization: `Bearer ${t9Key}` },
      policy('x', 'package steward.builtin\n\npii := 1\n\ndeny contains "x" if false\n'),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'POLICY_PACKAGE_CONFLICT',
      details: { package: 'steward.builtin' },
    });
    const other = await post(
      { 'x-license-key': gw.keys.acme },
      policy('no-plum', 'package custom.noplum\n\ndeny contains "no plums" if contains(input.query, "plum")\n'),
    );
    expect(other.statusCode).toBe(201);
    expect((await precheck({ 'x-license-key': gw.keys.acme }, 'a plum tart')).json()).toMatchObject({
      approved: false,
    });
  });

  it('refuses a policy that would switch a built-in helper on for its tenant; the secret stays blocked', async () => {
    const res = await post(
      { authorization: `Bearer ${t9Key}` },
      policy('t9-neuter', 'package steward.builtin.secrets\n\nplaceholder_token(_, _) if true\n'),
    );
    expect(res.json().error.code).toBe('POLICY_PACKAGE_CONFLICT');
    const check = await precheck({ authorization: `Bearer ${t9Key}` }, SECRET);
    expect(check.json()).toMatchObject({ approved: false, policies: expect.arrayContaining(['builtin-secrets']) });
  });

  it('refuses a package nested in one of the same organization, and lets another organization use the same name', async () => {
    const acme = { 'x-license-key': gw.keys.acme };
    expect((await post(acme, policy('evil', 'package evil\n\nnested := 1\n'))).statusCode).toBe(201);
    const nested = await post(acme, policy('evil-nested', 'package evil.nested\n\ndeny contains "y" if false\n'));
    expect(nested.json().error.code).toBe('POLICY_PACKAGE_CONFLICT');
    expect(
      (
        await post(
          { 'x-license-key': gw.keys.globex },
          policy('evil-nested', 'package evil.nested\n\ndeny contains "y" if false\n'),
        )
      ).statusCode,
    ).toBe(201);
    expect(
      (await post(acme, policy('after', 'package custom.after\n\ndeny contains "z" if input.query == "zz"\n')))
        .statusCode,
    ).toBe(201);
  });
});

describe('the engine and overlapping packages already on disk', () => {
  // What the API could write before the fix: a tenant's policy in the built-in secrets package.
  const LEGACY = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata:
  name: org-acme.t9-neuter
  labels: {app.kubernetes.io/managed-by: steward-api}
  annotations: {steward.dev/organization: acme, steward.dev/policy-name: t9-neuter, steward.dev/created-at: "2026-11-01T00:00:00.000Z"}
spec:
  type: custom
  priority: 100
  enabled: true
  action: block
  rego: |
    package steward.builtin.secrets

    placeholder_token(_, _) if true
  scope: {tenants: [t9], organizations: [acme]}
---
`;
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ manifests: LEGACY });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('starts, drops the less trusted policy with a problem naming both, and keeps the built-in one in force', async () => {
    const problems = gw.parts.deps.policies.problems();
    expect(problems).toContainEqual({
      policy: 'org-acme.t9-neuter',
      message: expect.stringMatching(/overlaps package steward\.builtin\.secrets of policy builtin-secrets/),
    });
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: { 'x-license-key': gw.keys.acme, 'x-tenant-id': 't9' },
      payload: { client_id: 'app', user_token: 'u', query: SECRET },
    });
    expect(res.json()).toMatchObject({ approved: false });
  });
});
