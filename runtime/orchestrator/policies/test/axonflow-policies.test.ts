import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../../testing/gateway.js';

/**
 * Dynamic policies in the AxonFlow SDK's shape (issue 32, item 2; docs/adr/0012-axonflow-shaped-policies.md): the
 * body the SDK sends, through the orchestrator's API, enforced by the gateway's pre-check of the same process (the
 * built-in pack loaded beside them).
 */

const SDK_BODY = {
  name: 'Block competitor talk',
  description: 'No talk of the competition',
  type: 'content',
  conditions: [{ field: 'query', operator: 'contains', value: 'Globex Rockets' }],
  actions: [{ type: 'block', config: { reason: 'Competitors are not discussed here' } }],
  priority: 10,
  enabled: true,
};
const ID = 'block-competitor-talk';
const PHRASE = 'How do globex rockets compare to ours?';

let gw: TestGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway();
  app = (await startTestOrchestrator(gw)).app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const headers = (key: string, tenant?: string) => ({
  'x-license-key': key,
  ...(tenant ? { 'x-tenant-id': tenant } : {}),
});
const create = (key: string, payload: unknown, tenant?: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/policies',
    headers: headers(key, tenant),
    payload: payload as Record<string, unknown>,
  });
const get = (key: string, id: string, tenant?: string) =>
  app.inject({ method: 'GET', url: `/api/v1/policies/${id}`, headers: headers(key, tenant) });
const put = (key: string, id: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: `/api/v1/policies/${id}`, headers: headers(key), payload });
const preCheck = async (key: string, query: string, tenant?: string, extra: Record<string, unknown> = {}) =>
  (
    await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: headers(key, tenant),
      payload: { client_id: 'app', user_token: 'u', query, data_sources: [], ...extra },
    })
  ).json();
const apiPolicies = () => gw.source.list('Policy').filter((p) => p.metadata.name.startsWith('org-'));

afterEach(async () => {
  for (const doc of apiPolicies()) await gw.source.delete('Policy', doc.metadata.name, doc.metadata.namespace);
});

describe('a policy in the AxonFlow SDK shape', () => {
  it('round-trips through create, list and get, and blocks its phrase on the next pre-check of that tenant only', async () => {
    expect((await preCheck(gw.keys.acme, PHRASE, 'team-a')).approved).toBe(true);

    const res = await create(gw.keys.acme, SDK_BODY, 'team-a');
    expect(res.statusCode).toBe(201);
    const created = res.json();
    const expected = {
      id: ID,
      name: 'Block competitor talk',
      type: 'content',
      priority: 10,
      enabled: true,
      action: 'block',
      description: 'No talk of the competition',
      conditions: SDK_BODY.conditions,
      actions: SDK_BODY.actions,
      rego: expect.stringContaining(`package steward.dynamic.block_competitor_talk\n`),
      scope: { tenants: ['team-a'] },
    };
    expect(created).toMatchObject({ ...expected, policy: expected });

    // the SDK's tenant list is a bare array; an organization-wide caller gets {policies, pagination}
    const tenantList = (
      await app.inject({ method: 'GET', url: '/api/v1/policies', headers: headers(gw.keys.acme, 'team-a') })
    ).json();
    expect(tenantList).toEqual([expect.objectContaining({ ...expected, rego: created.rego })]);
    const orgList = (
      await app.inject({ method: 'GET', url: '/api/v1/policies', headers: headers(gw.keys.acme) })
    ).json();
    expect(orgList.policies).toEqual([expect.objectContaining({ ...expected, rego: created.rego })]);
    const got = await get(gw.keys.acme, ID, 'team-a');
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ ...expected, rego: created.rego });

    const blocked = await preCheck(gw.keys.acme, PHRASE, 'team-a');
    expect(blocked).toMatchObject({
      approved: false,
      policies: [`org-acme.${ID}`],
      block_reason: `org-acme.${ID}: Competitors are not discussed here`,
    });
    expect((await preCheck(gw.keys.acme, 'How do our rockets fly?', 'team-a')).approved).toBe(true);
    expect((await preCheck(gw.keys.acme, PHRASE, 'team-b')).approved).toBe(true);
    expect((await preCheck(gw.keys.globex, PHRASE)).approved).toBe(true);
    expect((await get(gw.keys.globex, ID)).statusCode).toBe(404);
    // the built-in pack still applies beside it
    expect((await preCheck(gw.keys.acme, 'My SSN is 123-45-6789', 'team-a')).approved).toBe(false);
  });

  it('refuses a second name of the same id in the organization with 409 POLICY_EXISTS; another organization may use it', async () => {
    expect((await create(gw.keys.acme, SDK_BODY)).statusCode).toBe(201);
    const again = await create(gw.keys.acme, { ...SDK_BODY, name: '  Block COMPETITOR-talk! ' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'POLICY_EXISTS', details: { id: ID } });
    expect(again.json().error.message).toContain(`the id ${ID} (the id of the name "  Block COMPETITOR-talk! ")`);
    // NB: a Rego policy named as the id collides too: one id, one policy
    const rego = await create(gw.keys.acme, {
      name: ID,
      type: 'custom',
      rego: 'package custom.other\n\ndeny contains "x" if false\n',
    });
    expect(rego.statusCode).toBe(409);
    expect((await create(gw.keys.globex, SDK_BODY)).statusCode).toBe(201);
    expect((await preCheck(gw.keys.globex, PHRASE)).approved).toBe(false);
  });

  it('warns without blocking when its action is warn', async () => {
    const res = await create(gw.keys.acme, {
      ...SDK_BODY,
      actions: [{ type: 'warn', config: { message: 'careful with competitors' } }],
    });
    expect(res.json()).toMatchObject({ action: 'warn' });
    expect(await preCheck(gw.keys.acme, PHRASE)).toMatchObject({
      approved: true,
      warnings: [`org-acme.${ID}: careful with competitors`],
    });
  });

  it('reads client and request_type from the verified caller and the request', async () => {
    const res = await create(gw.keys.acme, {
      name: 'No SQL from team b',
      type: 'content',
      conditions: [
        { field: 'client.organization_id', operator: 'equals', value: 'acme' },
        { field: 'client.tenant_id', operator: 'equals', value: 'team-b' },
        { field: 'request_type', operator: 'equals', value: 'sql' },
        { field: 'query', operator: 'regex', value: '(?i)\\bselect\\b' },
      ],
      actions: [{ type: 'block' }],
    });
    expect(res.statusCode).toBe(201);
    const query = 'select name from staff';
    expect(await preCheck(gw.keys.acme, query, 'team-b', { request_type: 'sql' })).toMatchObject({
      approved: false,
      block_reason: 'org-acme.no-sql-from-team-b: blocked by policy "No SQL from team b"',
    });
    expect((await preCheck(gw.keys.acme, query, 'team-b')).approved).toBe(true);
    expect((await preCheck(gw.keys.acme, query, 'team-a', { request_type: 'sql' })).approved).toBe(true);
    // NB: the body's organization and tenant claims are not the caller's
    expect(
      (
        await preCheck(gw.keys.acme, query, undefined, {
          request_type: 'sql',
          client: { tenant_id: 'team-b' },
          tenant_id: 'team-b',
        })
      ).approved,
    ).toBe(true);
    // /api/request's request_type reaches the input too: blocked before any provider is asked
    const request = (type: string) =>
      gw.app.inject({
        method: 'POST',
        url: '/api/request',
        headers: headers(gw.keys.acme, 'team-b'),
        payload: { query, request_type: type, user_token: 'u', client_id: 'app' },
      });
    expect((await request('sql')).json()).toMatchObject({
      blocked: true,
      block_reason: expect.stringContaining('org-acme.no-sql-from-team-b'),
    });
    expect((await request('chat')).json().blocked).not.toBe(true);
  });

  it('changes with PUT: new conditions take over, other fields keep them, and rego makes it a Rego policy', async () => {
    expect((await create(gw.keys.acme, SDK_BODY)).statusCode).toBe(201);
    const changed = await put(gw.keys.acme, ID, {
      conditions: [{ field: 'query', operator: 'contains', value: 'initech' }],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      id: ID,
      name: 'Block competitor talk',
      conditions: [{ value: 'initech' }],
      actions: SDK_BODY.actions,
    });
    expect((await preCheck(gw.keys.acme, PHRASE)).approved).toBe(true);
    expect((await preCheck(gw.keys.acme, 'what does Initech sell?')).approved).toBe(false);

    const disabled = await put(gw.keys.acme, ID, { enabled: false });
    expect(disabled.json()).toMatchObject({ enabled: false, conditions: [{ value: 'initech' }] });
    expect((await preCheck(gw.keys.acme, 'what does Initech sell?')).approved).toBe(true);

    const wrong = await put(gw.keys.acme, ID, { action: 'warn' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.code).toBe('INVALID_REQUEST');

    const rego = 'package custom.rewritten\n\ndeny contains "rewritten" if contains(input.query, "kiwi")\n';
    const asRego = await put(gw.keys.acme, ID, { rego, enabled: true });
    expect(asRego.statusCode).toBe(200);
    expect(asRego.json()).toMatchObject({ id: ID, rego });
    expect(asRego.json()).not.toHaveProperty('conditions');
    expect((await preCheck(gw.keys.acme, 'kiwi')).approved).toBe(false);
  });

  it('keeps Rego policies as they were, with their name as their id', async () => {
    const res = await create(gw.keys.acme, {
      name: 'no-kiwi',
      type: 'custom',
      rego: 'package custom.nokiwi\n\ndeny contains "no kiwi" if contains(input.query, "kiwi")\n',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ id: 'no-kiwi', name: 'no-kiwi', action: 'block' });
    expect(res.json()).not.toHaveProperty('conditions');
    expect(
      (await create(gw.keys.acme, { name: 'Not A Label', type: 'custom', rego: 'package custom.x\n' })).statusCode,
    ).toBe(400);
  });
});

describe('a body that is not a policy is a coded 400, and nothing is stored', () => {
  const cases: { name: string; body: Record<string, unknown>; message: string | RegExp; field?: string }[] = [
    {
      name: 'both rego and conditions',
      body: { ...SDK_BODY, rego: 'package x\n' },
      message: 'a policy is written either as rego or as conditions and actions, not both',
    },
    {
      name: 'neither rego nor conditions',
      body: { name: 'x', type: 'custom' },
      message: 'missing required field(s): rego, or conditions and actions',
    },
    {
      name: 'conditions without actions',
      body: { ...SDK_BODY, actions: undefined },
      message: 'missing required field(s): actions',
    },
    {
      name: 'an unknown operator',
      body: { ...SDK_BODY, conditions: [{ field: 'query', operator: 'like', value: 'x' }] },
      message:
        'conditions[0].operator: unknown operator "like"; one of equals, not_equals, contains, not_contains, starts_with, ends_with, regex, in, not_in, greater_than, less_than',
      field: 'conditions[0].operator',
    },
    {
      name: 'an unknown field',
      body: { ...SDK_BODY, conditions: [{ field: 'response', operator: 'contains', value: 'x' }] },
      message: /^conditions\[0\]\.field: unknown field "response"; one of query/,
      field: 'conditions[0].field',
    },
    {
      name: 'an invalid regex',
      body: { ...SDK_BODY, conditions: [{ field: 'query', operator: 'regex', value: '[a-' }] },
      message: /^conditions\[0\]\.value: invalid regex: error parsing regexp/,
      field: 'conditions[0].value',
    },
    {
      name: 'an unknown action',
      body: { ...SDK_BODY, actions: [{ type: 'redact' }] },
      message: 'actions[0].type: unknown action "redact"; one of block, warn, log',
      field: 'actions[0].type',
    },
    {
      name: 'a name without a letter or digit',
      body: { ...SDK_BODY, name: '¿¡!?' },
      message: /^name: must contain a letter or a digit/,
      field: 'name',
    },
  ];
  it.each(cases)('$name', async ({ body, message, field }) => {
    const res = await create(gw.keys.acme, body);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('INVALID_REQUEST');
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
    if (field) expect(error.details.fields).toEqual([expect.objectContaining({ field })]);
    expect(apiPolicies()).toEqual([]);
  });
});
