import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema } from '../../../testing/db.js';
import { waitUntil } from '../../../testing/eventually.js';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
} from '../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../testing/llm/index.js';
import { WebhookRepository } from '../../orchestrator/webhooks/repository.js';

/**
 * Budgets that hold (issue 35), through the real gateway with the official `openai` SDK against a stand-in that
 * reports usage: concurrency on streams, two gateways on one PostgreSQL, a calendar window in a time zone with a
 * controllable clock, a client's budget under its organization's (LiteLLM #11962), warn budgets, the cost in the
 * audit row.
 */
const budget = (name: string, spec: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Budget\nmetadata: {name: ${name}}\nspec:\n${spec}---\n`;

/** Each call: "hi" (1 estimated token) plus max_tokens 100 reserves 101 tokens; the stand-in reports 1 + 20. */
const MAX_TOKENS = 100;
const RESERVED = 1 + MAX_TOKENS;
const USED = 21;
const ENV = {
  OPENAI_API_KEY: 'sk-upstream',
  STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
  STEWARD_LLM_TIMEOUT_MS: '10000',
  STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
};

let fake: FakeOpenAiServer;
beforeAll(async () => {
  fake = await startFakeOpenAi({
    apiKey: 'sk-upstream',
    // NB: a little latency, so that the 50 calls are in flight together
    delayMs: 50,
    otherwise: () => ({ kind: 'reply', chunks: ['ok ', 'fine'], usage: { promptTokens: 1, completionTokens: 20 } }),
  });
});
afterAll(async () => {
  await fake?.close();
});

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

async function gateway(manifests: string, extra: Parameters<typeof startTestGateway>[0] = {}) {
  const gw = await startTestGateway({
    policyPack: false,
    manifests,
    env: { ...ENV, OPENAI_BASE_URL: fake.baseURL },
    ...extra,
  });
  gateways.push(gw);
  const base = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  return { gw, base };
}

const sdk = (base: string, apiKey: string) => new OpenAI({ apiKey, baseURL: `${base}/v1`, maxRetries: 0 });

interface Outcome {
  status: number;
  code?: string;
  headers: Record<string, string | null>;
}

const BUDGET_HEADERS = ['x-budget-limit', 'x-budget-remaining', 'x-budget-reset', 'x-budget-unit'];
const pick = (h: Headers) => Object.fromEntries(BUDGET_HEADERS.map((k) => [k, h.get(k)]));

/** One streamed chat call through the SDK, read to its end. */
async function streamed(client: OpenAI): Promise<Outcome> {
  try {
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: MAX_TOKENS,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    for await (const _ of data);
    return { status: response.status, headers: pick(response.headers) };
  } catch (err) {
    const e = err as { status?: number; error?: { code?: string }; code?: string; headers?: Headers };
    return { status: e.status ?? 0, code: e.code ?? e.error?.code, headers: e.headers ? pick(e.headers) : {} };
  }
}

const HARD = budget(
  'hard',
  '  scope: {organization: acme}\n  limit: {tokens: 1000}\n  window: {period: month, timeZone: Europe/Lisbon}\n',
);

/** What the ledger holds for a budget this month (spent and reserved tokens). */
async function ledger(gw: TestGateway, name: string) {
  const { rows } = await gw.store.db.query<{ spent: string | number; reserved: string | number }>(
    `SELECT coalesce(sum(spent_tokens), 0) AS spent, coalesce(sum(reserved_tokens), 0) AS reserved
     FROM budget_buckets WHERE ledger = $1`,
    [`default/${name}`],
  );
  return { spent: Number(rows[0]!.spent), reserved: Number(rows[0]!.reserved) };
}

/** Waits until every reservation has settled (settles run behind the answers). */
async function settled(gw: TestGateway, name: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const l = await ledger(gw, name);
    if (l.reserved === 0) return l;
    if (Date.now() > deadline) throw new Error(`reservations of ${name} never settled: ${JSON.stringify(l)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function checkRun(outcomes: Outcome[], upstreamCalls: number) {
  const ok = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.status !== 200);
  expect(ok.length).toBeGreaterThanOrEqual(Math.floor(1000 / RESERVED));
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(r.status).toBe(429);
    expect(r.code).toBe('budget_exceeded');
    expect(r.headers['x-budget-limit']).toBe('1000');
    expect(r.headers['x-budget-unit']).toBe('tokens');
    expect(Number(r.headers['x-budget-remaining'])).toBeLessThan(RESERVED);
    expect(Number(r.headers['x-budget-reset'])).toBeGreaterThan(Date.now() / 1000);
  }
  // the refused calls never reached the stand-in
  expect(upstreamCalls).toBe(ok.length);
  return ok.length;
}

describe('a hard budget of 1,000 tokens', () => {
  it('holds 50 concurrent streaming calls: the spend overshoots by at most one reservation, the rest get 429', async () => {
    const { gw, base } = await gateway(HARD);
    const client = sdk(base, gw.keys.acme);
    const before = fake.requests.length;
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => streamed(client)));
    const admitted = checkRun(outcomes, fake.requests.length - before);
    const l = await settled(gw, 'hard');
    expect(l.spent).toBe(admitted * USED);
    expect(l.spent).toBeLessThanOrEqual(1000 + RESERVED);
    // the answers carried the deciding budget's headers
    const answered = outcomes.find((o) => o.status === 200)!;
    expect(answered.headers).toMatchObject({ 'x-budget-limit': '1000', 'x-budget-unit': 'tokens' });
  });

  const url = process.env.DATABASE_URL;
  (url ? it : it.skip)('holds across two gateway processes sharing one PostgreSQL', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    try {
      const a = await gateway(HARD, { database: { url: url!, schema } });
      const b = await gateway(HARD, { database: { url: url!, schema } });
      const before = fake.requests.length;
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          streamed(i % 2 ? sdk(a.base, a.gw.keys.acme) : sdk(b.base, b.gw.keys.acme)),
        ),
      );
      const admitted = checkRun(outcomes, fake.requests.length - before);
      const l = await settled(a.gw, 'hard');
      expect(l.spent).toBe(admitted * USED);
      expect(l.spent).toBeLessThanOrEqual(1000 + RESERVED);
    } finally {
      await Promise.all(gateways.splice(0).map((g) => g.close()));
      await dropSchema(url!, schema);
    }
  });
});

describe('a monthly budget in Europe/Lisbon', () => {
  it('resets at local midnight on the first of the month (a controllable clock)', async () => {
    let now = new Date('2026-07-31T22:30:00Z'); // 23:30 on 31 July in Lisbon (UTC+1)
    const { gw, base } = await gateway(
      budget('monthly', '  limit: {tokens: 250}\n  window: {period: month, timeZone: Europe/Lisbon}\n'),
      { now: () => now },
    );
    const client = sdk(base, gw.keys.acme);
    const first = await streamed(client);
    expect(first.status).toBe(200);
    // July's window ends at midnight in Lisbon: 23:00 UTC
    expect(first.headers['x-budget-reset']).toBe(String(Date.parse('2026-07-31T23:00:00Z') / 1000));
    await settled(gw, 'monthly');
    expect((await streamed(client)).status).toBe(200);
    await settled(gw, 'monthly');
    // 42 spent: a third call of 101 reserved fits (42 + 101 = 143), then 63 + 101 = 164, 84 + 101 = 185 ... until
    // the spend leaves less than 101
    let admitted = 2;
    for (;;) {
      const o = await streamed(client);
      if (o.status !== 200) {
        expect(o).toMatchObject({ status: 429, code: 'budget_exceeded' });
        break;
      }
      admitted++;
      await settled(gw, 'monthly');
      expect(admitted).toBeLessThan(20);
    }
    expect(admitted * USED + RESERVED).toBeGreaterThan(250);
    now = new Date('2026-07-31T22:59:59Z');
    expect((await streamed(client)).status).toBe(429);
    now = new Date('2026-07-31T23:00:00Z'); // 00:00 on 1 August in Lisbon
    const august = await streamed(client);
    expect(august.status).toBe(200);
    expect(august.headers['x-budget-reset']).toBe(String(Date.parse('2026-08-31T23:00:00Z') / 1000));
  });
});

describe("a client's budget under its organization's (LiteLLM #11962)", () => {
  async function withClients(manifests: string) {
    const { gw, base } = await gateway(manifests);
    const create = async (name: string) => {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/api/clients',
        headers: { 'x-license-key': gw.keys.acme },
        payload: { name },
      });
      return res.json<{ id: string; api_key: string }>();
    };
    return { gw, base, create };
  }

  /** Streams as the client until a refusal (at most `max` calls); returns how many were admitted and the refusal. */
  async function untilRefused(gw: TestGateway, client: OpenAI, ledgerName: string, max: number) {
    for (let admitted = 0; admitted < max; admitted++) {
      const o = await streamed(client);
      if (o.status !== 200) return { admitted, refusal: o };
      await settled(gw, ledgerName);
    }
    return { admitted: max, refusal: undefined };
  }

  it('holds the client by its own budget when it is the lower, and its neighbours by the organization', async () => {
    const { gw, base, create } = await withClients(HARD);
    const capped = await create('capped');
    const other = await create('other');
    await gw.source.apply({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Budget',
      metadata: { name: 'capped-client' },
      spec: {
        scope: { client: capped.id },
        limit: { tokens: 250 },
        window: { period: 'day', timeZone: 'UTC' },
        action: 'block',
        thresholds: [80, 100],
      },
    });
    await gw.source.reload?.();
    const { admitted, refusal } = await untilRefused(gw, sdk(base, capped.api_key), 'capped-client', 20);
    expect(admitted).toBeGreaterThanOrEqual(2);
    expect(refusal).toMatchObject({ status: 429, code: 'budget_exceeded' });
    expect(refusal?.headers['x-budget-limit']).toBe('250');
    // a neighbour of the same organization is held only by the organization's 1,000
    const neighbour = await streamed(sdk(base, other.api_key));
    expect(neighbour.status).toBe(200);
    expect(neighbour.headers['x-budget-limit']).toBe('1000');
  });

  it('holds the client by its organization when the organization is the lower', async () => {
    const { gw, base, create } = await withClients(
      budget(
        'org-low',
        '  scope: {organization: acme}\n  limit: {tokens: 150}\n  window: {period: day, timeZone: UTC}\n',
      ) + budget('generous', '  each: client\n  limit: {tokens: 100000}\n  window: {period: day, timeZone: UTC}\n'),
    );
    const client = await create('big-spender');
    const { admitted, refusal } = await untilRefused(gw, sdk(base, client.api_key), 'org-low', 20);
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(refusal).toMatchObject({ status: 429, code: 'budget_exceeded' });
    expect(refusal?.headers['x-budget-limit']).toBe('150');
  });
});

describe('warn budgets and costs', () => {
  it('lets a call past a warn budget through with a warning, and records the cost in the audit row', async () => {
    const { gw, base } = await gateway(
      budget('soft', '  limit: {usd: 0.00001}\n  window: {hours: 24}\n  action: warn\n  thresholds: [50]\n'),
    );
    const client = sdk(base, gw.keys.acme);
    const { response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: MAX_TOKENS })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('warning')).toContain('budget default/soft');
    expect(response.headers.get('x-budget-unit')).toBe('usd');
    const audit = await gw.store.audit.get('acme', response.headers.get('x-steward-audit-id')!);
    // gpt-4o-mini: 1 × $0.15 + 20 × $0.60 per million = 12.15 µUSD, rounded up
    expect(audit?.metadata).toMatchObject({ cost_usd: 0.000013, budget: 'default/soft' });
  });
});

describe('plan steps', () => {
  it('charges a step to its AgentConfig: that agent’s budget refuses the step before its provider', async () => {
    const { gw } = await gateway(
      agentConfigYaml('writer', 1, { provider: 'openai', model: 'gpt-4o-mini' }) +
        budget(
          'writer-cap',
          '  scope: {agent: writer}\n  limit: {tokens: 50}\n  window: {period: day, timeZone: UTC}\n',
        ),
    );
    const orch = await startTestOrchestrator(gw, {
      budgets: { reservationTtlMs: 600_000 },
      planner: 'deterministic',
    });
    try {
      const before = fake.requests.length;
      const res = await orch.app.inject({
        method: 'POST',
        url: '/api/v1/plan',
        headers: { 'x-license-key': gw.keys.acme },
        payload: { query: 'write a haiku', domain: 'generic' },
      });
      expect(res.statusCode).toBe(429);
      const body = res.json<{ error: { code: string; details: { steps: { code: string }[] } } }>();
      expect(body.error.code).toBe('BUDGET_EXCEEDED');
      expect(body.error.details.steps[0]!.code).toBe('BUDGET_EXCEEDED');
      expect(fake.requests.length).toBe(before);
    } finally {
      await orch.close();
    }
  });
});

describe('alerts', () => {
  it('queues budget.threshold once when a settle crosses it, and budget.exceeded once when a call is refused', async () => {
    const { gw, base } = await gateway(
      budget('alerting', '  limit: {tokens: 250}\n  window: {period: day, timeZone: UTC}\n  thresholds: [10, 50]\n'),
    );
    await new WebhookRepository(gw.store.db).create(
      'acme',
      null,
      {
        url: 'https://hooks.example/budget',
        events: ['budget.threshold', 'budget.exceeded'],
        secret: 's'.repeat(32),
        active: true,
      },
      new Date(),
    );
    const client = sdk(base, gw.keys.acme);
    for (let i = 0; i < 20; i++) {
      const o = await streamed(client);
      await settled(gw, 'alerting');
      if (o.status !== 200) break;
    }
    // a refused call again: told once per window
    expect((await streamed(client)).status).toBe(429);
    const deliveries = await waitUntil(
      'the budget deliveries',
      async () => {
        const { rows } = await gw.store.db.query<{ event: string; payload: { data: { percent?: number } } }>(
          `SELECT event, payload FROM webhook_deliveries WHERE event LIKE 'budget.%' ORDER BY created_at`,
        );
        return rows.length >= 3 ? rows : undefined;
      },
      10_000,
    );
    expect(deliveries.map((d) => [d.event, d.payload.data.percent])).toEqual([
      ['budget.threshold', 10],
      ['budget.threshold', 50],
      ['budget.exceeded', undefined],
    ]);
  });
});
