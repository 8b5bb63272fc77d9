/**
 * What the gateway tells a person about their organization (routes/governance.ts): `GET /api/v1/whoami`,
 * `GET /api/v1/governance/policies` with the policies' modes, compiled states and counts, and
 * `GET /api/v1/governance/agents` with the orchestrator's pool and each agent's latency from the audit rows; and the
 * orchestrator's own `GET /api/v1/pool`. A gateway with its orchestrator beside it, on PGlite and, when DATABASE_URL
 * is set, on PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyResource } from '../../../api/index.js';
import { dropSchema } from '../../../testing/db.js';
import { eventually } from '../../../testing/eventually.js';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  TEST_INTERNAL_SECRET,
  type TestGateway,
  type TestOrchestrator,
} from '../../../testing/gateway.js';
import { buildGateway } from '../app.js';
import { httpPlanForwarder } from '../plan-forward.js';

const SSN = '123-45-6789';
const PG_URL = process.env.DATABASE_URL;
const DATABASES = [
  { name: 'pglite', skip: undefined, database: () => undefined },
  {
    name: 'postgres',
    skip: PG_URL ? undefined : 'DATABASE_URL is not set',
    database: () => ({ url: PG_URL!, schema: `t_${randomBytes(6).toString('hex')}` }),
  },
];

/** A Rego policy that denies queries containing `word`, in a package of its own. */
const wordRego = (pkg: string, word: string) =>
  `package custom.${pkg}\n\ndeny contains msg if {\n  contains(lower(input.query), "${word}")\n  msg := "no ${word}"\n}\n`;

const policyDoc = (name: string, spec: Record<string, unknown>) =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Policy',
    metadata: { name },
    spec: { type: 'custom', ...spec },
  }) as unknown as AnyResource;

interface GovernedPolicy {
  name: string;
  origin: string;
  kind: string;
  mode: string;
  state: string;
  error?: string;
  evaluations_24h: number;
  violations_24h: number;
}

interface GovernedAgent {
  name: string;
  healthy: number;
  replicas: number;
  max_in_flight: number;
  members: { agent_config: string; health: string; max_in_flight: number }[];
  latency: { calls: number; p50_ms: number | null; p99_ms: number | null };
}

for (const db of DATABASES) {
  const suite = db.skip ? describe.skip : describe;
  suite(`governance endpoints on ${db.name}${db.skip ? ` (skipped: ${db.skip})` : ''}`, () => {
    let gw: TestGateway;
    let orch: TestOrchestrator;
    let database: { url: string; schema: string } | undefined;
    /** API keys of acme: one with the approver role, one without, one bound to the tenant `eu`. */
    const apiKeys = { approver: { id: '', key: '' }, plain: { id: '', key: '' }, bound: { id: '', key: '' } };

    const license = (key: string, extra: Record<string, string> = {}) => ({ 'x-license-key': key, ...extra });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const get = (url: string, headers: Record<string, string>, app: FastifyInstance = gw.app) =>
      app.inject({ method: 'GET', url, headers });
    const policiesOf = async (key: string, extra: Record<string, string> = {}) => {
      const res = await get('/api/v1/governance/policies', license(key, extra));
      expect(res.statusCode).toBe(200);
      return res.json().policies as GovernedPolicy[];
    };
    const policy = async (key: string, name: string) => (await policiesOf(key)).find((p) => p.name === name);
    const agentsOf = async (key: string, app?: FastifyInstance) => {
      const res = await get('/api/v1/governance/agents', license(key), app);
      expect(res.statusCode).toBe(200);
      return res.json() as {
        agents: GovernedAgent[];
        count: number;
        pool: Record<string, number> | null;
        pool_error?: string;
      };
    };
    const preCheck = async (key: string, query: string) => {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/api/policy/pre-check',
        headers: license(key),
        payload: { query, client_id: 'governance-test', user_token: 'user-1' },
      });
      expect(res.statusCode).toBe(200);
      return res.json() as { context_id: string; approved: boolean; policies: string[] };
    };

    beforeAll(async () => {
      database = db.database();
      gw = await startTestGateway({
        manifests: agentConfigYaml('alpha', 2) + agentConfigYaml('beta', 1),
        ...(database ? { database } : {}),
      });
      orch = await startTestOrchestrator(gw);
      const create = async (name: string, roles?: string[], extra: Record<string, string> = {}) => {
        const res = await gw.app.inject({
          method: 'POST',
          url: '/api/clients',
          headers: license(gw.keys.acme, extra),
          payload: { name, ...(roles ? { roles } : {}) },
        });
        expect(res.statusCode).toBe(201);
        return { id: String(res.json().id), key: String(res.json().api_key) };
      };
      apiKeys.approver = await create('approver', ['approver']);
      apiKeys.plain = await create('plain');
      apiKeys.bound = await create('eu-only', undefined, { 'x-tenant-id': 'eu' });
    });
    afterAll(async () => {
      await orch?.close();
      await gw?.close();
      if (database) await dropSchema(database.url, database.schema);
    });

    describe('GET /api/v1/whoami', () => {
      it('shows a license key as the organization, holding every role', async () => {
        const res = await get('/api/v1/whoami', license(gw.keys.acme));
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          credential: 'license-key',
          organization_id: 'acme',
          tenant_bound: false,
          tier: 'ENT',
          roles: ['approver'],
          principal: 'license:acme',
        });
        expect((await get('/api/v1/whoami', license(gw.keys.globex))).json()).toMatchObject({
          organization_id: 'globex',
          tier: 'PRO',
          principal: 'license:globex',
        });
      });

      it('shows an API key created with the approver role as its client, with the role', async () => {
        const res = await get('/api/v1/whoami', bearer(apiKeys.approver.key));
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({
          credential: 'api-key',
          organization_id: 'acme',
          client_id: apiKeys.approver.id,
          tenant_bound: false,
          roles: ['approver'],
          principal: `client:${apiKeys.approver.id}`,
        });
      });

      it('shows an API key created without roles with none', async () => {
        const res = await get('/api/v1/whoami', bearer(apiKeys.plain.key));
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ credential: 'api-key', client_id: apiKeys.plain.id, roles: [] });
      });

      it('shows the tenant of a call narrowed by X-Tenant-ID, and of a key bound to one', async () => {
        const narrowed = await get('/api/v1/whoami', license(gw.keys.acme, { 'x-tenant-id': 'eu' }));
        expect(narrowed.statusCode).toBe(200);
        expect(narrowed.json()).toMatchObject({ organization_id: 'acme', tenant_id: 'eu', tenant_bound: false });
        const bound = await get('/api/v1/whoami', bearer(apiKeys.bound.key));
        expect(bound.json()).toMatchObject({ client_id: apiKeys.bound.id, tenant_id: 'eu', tenant_bound: true });
        expect((await get('/api/v1/whoami', license(gw.keys.acme))).json().tenant_id).toBeUndefined();
      });

      it('answers 401 to a call without a credential on a licensed gateway', async () => {
        const res = await get('/api/v1/whoami', {});
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
        expect(res.body).not.toContain('organization_id');
      });
    });

    describe('GET /api/v1/governance/policies', () => {
      beforeAll(async () => {
        await gw.source.apply(
          policyDoc('globex-only', { rego: wordRego('globex_only', 'banana'), scope: { organizations: ['globex'] } }),
        );
        await gw.source.apply(
          policyDoc('warn-on-kiwi', { rego: wordRego('warn_on_kiwi', 'kiwi'), enforcementAction: 'warn' }),
        );
        await gw.source.apply(
          policyDoc('broken-rego', { rego: 'package custom.broken_rego\n\ndeny contains msg if {\n  msg :=\n}\n' }),
        );
        // NB: the engine recompiles when the source changes; the list shows its states once it has
        await eventually(async () => {
          const names = (await policiesOf(gw.keys.acme)).map((p) => p.name);
          expect(names).toEqual(expect.arrayContaining(['warn-on-kiwi', 'broken-rego']));
          expect((await policy(gw.keys.acme, 'broken-rego'))?.state).toBe('failed');
        });
      });

      it('lists the built-in pack, compiled and enforced, sorted by name', async () => {
        const res = await get('/api/v1/governance/policies', license(gw.keys.acme));
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.count).toBe(body.policies.length);
        expect(Date.parse(body.generated_at)).not.toBeNaN();
        const names = body.policies.map((p: GovernedPolicy) => p.name);
        expect(names).toEqual([...names].sort());
        expect(body.policies.find((p: GovernedPolicy) => p.name === 'builtin-pii')).toMatchObject({
          namespace: 'default',
          origin: 'builtin',
          kind: 'rego',
          mode: 'enforce',
          enabled: true,
          state: 'compiled',
        });
        expect(body.policies.find((p: GovernedPolicy) => p.name === 'builtin-pii').error).toBeUndefined();
        expect(body.policies.find((p: GovernedPolicy) => p.name === 'builtin-output-redaction')).toMatchObject({
          origin: 'builtin',
          kind: 'redact',
          surfaces: ['llm_output'],
          state: 'compiled',
        });
      });

      it('shows a Policy scoped to another organization to that organization only', async () => {
        expect(await policy(gw.keys.acme, 'globex-only')).toBeUndefined();
        expect(await policy(gw.keys.globex, 'globex-only')).toMatchObject({
          origin: 'resource',
          mode: 'enforce',
          state: 'compiled',
        });
      });

      it("shows a policy created through the orchestrator's API as dynamic, to its organization only", async () => {
        const res = await orch.app.inject({
          method: 'POST',
          url: '/api/v1/policies',
          headers: license(gw.keys.acme),
          payload: { name: 'no-durian', type: 'custom', priority: 10, rego: wordRego('no_durian', 'durian') },
        });
        expect(res.statusCode).toBe(201);
        const dynamic = await eventually(async () => {
          const found = (await policiesOf(gw.keys.acme)).find((p) => p.origin === 'dynamic');
          expect(found).toBeDefined();
          return found!;
        });
        expect(dynamic).toMatchObject({
          name: expect.stringContaining('no-durian'),
          mode: 'enforce',
          state: 'compiled',
        });
        expect((await policiesOf(gw.keys.globex)).map((p) => p.name)).not.toContain(dynamic.name);
      });

      it('shows a Policy under enforcementAction warn in mode warn', async () => {
        expect(await policy(gw.keys.acme, 'warn-on-kiwi')).toMatchObject({
          origin: 'resource',
          kind: 'rego',
          mode: 'warn',
          state: 'compiled',
        });
      });

      it('shows a Policy whose Rego does not compile as failed, with the error and its position', async () => {
        const broken = await policy(gw.keys.acme, 'broken-rego');
        expect(broken).toMatchObject({ origin: 'resource', state: 'failed', error: expect.any(String) });
        expect(broken!.error).toMatch(/^broken-rego\.rego:5:1: /);
        // the others stay in force
        expect((await policy(gw.keys.acme, 'builtin-pii'))?.state).toBe('compiled');
      });

      it("counts acme's blocked pre-checks once each, from their own audit rows, and shows globex none", async () => {
        const blocked: string[] = [];
        const N = 3;
        for (let i = 0; i < N; i++) {
          const answer = await preCheck(gw.keys.acme, `My SSN is ${SSN}, case ${i}`);
          expect(answer).toMatchObject({ approved: false, policies: expect.arrayContaining(['builtin-pii']) });
          blocked.push(answer.context_id);
        }
        const approved = await preCheck(gw.keys.acme, 'What is the weather in Lisbon?');
        expect(approved.approved).toBe(true);

        // a blocked pre-check's row is the gateway's, with its text masked; an approved one writes none
        const { rows } = await gw.store.db.query<{
          context_id: string;
          prompt: string;
          metadata: Record<string, unknown>;
        }>(`SELECT context_id, prompt, metadata FROM audit_entries WHERE context_id = ANY ($1::text[])`, [
          [...blocked, approved.context_id],
        ]);
        expect(rows.map((r) => r.context_id).sort()).toEqual([...blocked].sort());
        for (const r of rows) {
          expect(r.metadata).toMatchObject({
            via: 'pre_check',
            surface: 'pre-check',
            decision: 'blocked_input',
            policies: expect.arrayContaining(['builtin-pii']),
            policies_evaluated: expect.arrayContaining(['builtin-pii']),
            stored_text: 'masked',
          });
          expect(r.prompt).toContain('[REDACTED');
          expect(r.prompt).not.toContain(SSN);
        }
        // ... and every pre-check has its row of precheck_policy_results, which the reports count (not the audit rows)
        const counted = await gw.store.db.query<{ context_id: string }>(
          `SELECT context_id FROM precheck_policy_results WHERE context_id = ANY ($1::text[])`,
          [[...blocked, approved.context_id]],
        );
        expect(counted.rows.map((r) => r.context_id).sort()).toEqual([...blocked, approved.context_id].sort());

        // each pre-check once
        expect(await policy(gw.keys.acme, 'builtin-pii')).toMatchObject({ violations_24h: N, evaluations_24h: N + 1 });
        expect(await policy(gw.keys.globex, 'builtin-pii')).toMatchObject({ evaluations_24h: 0, violations_24h: 0 });
      });

      it("does not count a caller's own record of a blocked pre-check's call a second time", async () => {
        const before = (await policy(gw.keys.acme, 'builtin-pii'))!;
        const summed = async () => {
          const res = await gw.app.inject({
            method: 'GET',
            url: '/api/v1/audit/summary?window=1h',
            headers: license(gw.keys.acme),
          });
          const buckets = res.json().buckets as { requests: number; blocks: number }[];
          return {
            requests: buckets.reduce((n, b) => n + b.requests, 0),
            blocks: buckets.reduce((n, b) => n + b.blocks, 0),
          };
        };
        const summaryBefore = await summed();
        const answer = await preCheck(gw.keys.acme, `Still my SSN: ${SSN}`);
        expect(answer.approved).toBe(false);
        const recorded = await gw.app.inject({
          method: 'POST',
          url: '/api/audit/llm-call',
          headers: license(gw.keys.acme),
          payload: { context_id: answer.context_id, client_id: 'governance-test', prompt: `My SSN is ${SSN}` },
        });
        expect(recorded.statusCode).toBe(200);
        const { rows } = await gw.store.db.query<{ metadata: Record<string, unknown>; prompt: string }>(
          `SELECT metadata, prompt FROM audit_entries WHERE context_id = $1 ORDER BY created_at, id`,
          [answer.context_id],
        );
        expect(rows).toHaveLength(2);
        expect(rows.map((r) => r.metadata.via ?? null)).toEqual(['pre_check', null]);
        expect(rows[1]).toMatchObject({ metadata: { context_approved: false, decision: 'blocked_input' } });
        // the caller's row keeps the pre-check's policy results, read from its precheck_policy_results row
        expect(rows[1]!.metadata.policy_results).toEqual(
          expect.arrayContaining([expect.objectContaining({ policy: 'builtin-pii' })]),
        );
        expect(rows[1]!.prompt).not.toContain(SSN);
        const after = (await policy(gw.keys.acme, 'builtin-pii'))!;
        expect(after.violations_24h - before.violations_24h).toBe(1);
        expect(after.evaluations_24h - before.evaluations_24h).toBe(1);
        // the audit summary: two rows (the block, and the call made all the same), one block
        const summaryAfter = await summed();
        expect(summaryAfter.requests - summaryBefore.requests).toBe(2);
        expect(summaryAfter.blocks - summaryBefore.blocks).toBe(1);
      });

      it("counts a tenant's calls for a caller narrowed to that tenant", async () => {
        const res = await gw.app.inject({
          method: 'POST',
          url: '/api/policy/pre-check',
          headers: license(gw.keys.acme, { 'x-tenant-id': 'eu' }),
          payload: { query: `My SSN is ${SSN}`, client_id: 'governance-test', user_token: 'user-2' },
        });
        expect(res.json().approved).toBe(false);
        const eu = (await policiesOf(gw.keys.acme, { 'x-tenant-id': 'eu' })).find((p) => p.name === 'builtin-pii');
        expect(eu).toMatchObject({ evaluations_24h: 1, violations_24h: 1 });
        const us = (await policiesOf(gw.keys.acme, { 'x-tenant-id': 'us' })).find((p) => p.name === 'builtin-pii');
        expect(us).toMatchObject({ evaluations_24h: 0, violations_24h: 0 });
      });
    });

    describe('GET /api/v1/governance/agents', () => {
      beforeAll(async () => {
        const row = (organizationId: string, latencyMs: number | undefined, metadata: Record<string, unknown>) =>
          gw.store.audit.record({
            organizationId,
            clientId: 'plan-runner',
            contextId: null,
            ...(latencyMs !== undefined ? { latencyMs } : {}),
            metadata,
          });
        for (const ms of [10, 20, 30, 40]) await row('acme', ms, { governed: true, via: 'plan_step', agent: 'alpha' });
        for (const ms of [900, 1000]) await row('globex', ms, { governed: true, via: 'plan_step', agent: 'alpha' });
        // an agent of no AgentConfig, and a row of no agent: neither is any listed agent's
        await row('acme', 5, { governed: true, via: 'a2a', agent: 'ghost' });
        await row('acme', 7777, { governed: true, via: 'llm' });
      });

      it('lists each AgentConfig with its pool members, their health and load, and the pool figures', async () => {
        const body = await eventually(async () => {
          const b = await agentsOf(gw.keys.acme);
          expect(b.pool).toEqual({ desired: 3, available: 3, healthy: 3, unhealthy: 0 });
          return b;
        });
        expect(body.pool_error).toBeUndefined();
        expect(body.count).toBe(2);
        expect(body.agents.map((a) => a.name)).toEqual(['alpha', 'beta']);
        const [alpha, beta] = body.agents;
        expect(alpha).toMatchObject({
          namespace: 'default',
          domain: 'generic',
          type: 'coordinator',
          replicas: 2,
          healthy: 2,
          in_flight: 0,
          queries_processed: 0,
        });
        expect(alpha!.members).toHaveLength(2);
        for (const m of alpha!.members)
          expect(m).toMatchObject({ agent_config: 'default/alpha', health: 'healthy', kind: 'in-process' });
        expect(alpha!.max_in_flight).toBe(alpha!.members.reduce((n, m) => n + m.max_in_flight, 0));
        expect(alpha!.max_in_flight).toBeGreaterThan(0);
        expect(beta).toMatchObject({
          replicas: 1,
          healthy: 1,
          members: [expect.objectContaining({ health: 'healthy' })],
        });
        expect(beta!.members[0]!.agent_config).toBe('default/beta');
      });

      it("gives each agent the caller's organization's calls and latency percentiles only", async () => {
        const acme = await agentsOf(gw.keys.acme);
        const latency = (b: typeof acme, name: string) => b.agents.find((a) => a.name === name)!.latency;
        // percentile_cont over 10, 20, 30, 40: p50 25, p99 30 + 0.97 × 10
        expect(latency(acme, 'alpha')).toEqual({ calls: 4, p50_ms: 25, p99_ms: 39.7 });
        expect(latency(acme, 'beta')).toEqual({ calls: 0, p50_ms: null, p99_ms: null });
        expect(acme.agents.map((a) => a.name)).not.toContain('ghost');
        const globex = await agentsOf(gw.keys.globex);
        expect(latency(globex, 'alpha')).toEqual({ calls: 2, p50_ms: 950, p99_ms: 999 });
        // the pool is the installation's: every organization sees the same members
        expect(globex.pool).toEqual(acme.pool);
      });

      it('answers 200 without the pool and says why when no orchestrator is configured', async () => {
        const app = buildGateway({ ...gw.parts.deps, plans: undefined });
        try {
          await app.ready();
          const body = await agentsOf(gw.keys.acme, app);
          expect(body.pool).toBeNull();
          expect(body.pool_error).toMatch(/no orchestrator/);
          expect(body.agents.map((a) => a.name)).toEqual(['alpha', 'beta']);
          expect(body.agents[0]).toMatchObject({ healthy: 0, members: [], latency: { calls: 4 } });
        } finally {
          await app.close();
        }
      });

      it.each([
        {
          name: 'hangs up on every request',
          handle: (_req: IncomingMessage, res: ServerResponse) => res.socket?.destroy(),
          error: /^the orchestrator could not be asked: /,
        },
        {
          name: 'answers 503',
          handle: (_req: IncomingMessage, res: ServerResponse) =>
            res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"starting"}'),
          error: /^the orchestrator answered 503$/,
        },
      ])('answers 200 without the pool and says why when the orchestrator $name', async ({ handle, error }) => {
        const peer = createServer(handle);
        await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
        const { port } = peer.address() as AddressInfo;
        const app = buildGateway({
          ...gw.parts.deps,
          plans: httpPlanForwarder(`http://127.0.0.1:${port}`, TEST_INTERNAL_SECRET),
        });
        try {
          await app.ready();
          const body = await agentsOf(gw.keys.acme, app);
          expect(body.pool).toBeNull();
          expect(body.pool_error).toMatch(error);
          expect(body.count).toBe(2);
          expect(body.agents[0]).toMatchObject({ healthy: 0, members: [], latency: { calls: 4 } });
        } finally {
          await app.close();
          await new Promise((resolve) => peer.close(resolve));
        }
      });
    });

    describe("the orchestrator's GET /api/v1/pool", () => {
      it('answers a license key with the figures and every member', async () => {
        const res = await get('/api/v1/pool', license(gw.keys.acme), orch.app);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.pool).toEqual({ desired: 3, available: 3, healthy: 3, unhealthy: 0 });
        expect(Date.parse(body.generated_at)).not.toBeNaN();
        expect(body.members).toHaveLength(3);
        expect(body.members.map((m: { agent_config: string }) => m.agent_config).sort()).toEqual([
          'default/alpha',
          'default/alpha',
          'default/beta',
        ]);
        for (const m of body.members)
          expect(m).toMatchObject({
            id: expect.any(String),
            kind: 'in-process',
            health: 'healthy',
            draining: false,
            in_flight: 0,
            max_in_flight: expect.any(Number),
            queries_processed: 0,
          });
        expect(new Set(body.members.map((m: { id: string }) => m.id)).size).toBe(3);
      });

      it('answers 401 to a call without a credential', async () => {
        expect((await get('/api/v1/pool', {}, orch.app)).statusCode).toBe(401);
      });
    });
  });
}
