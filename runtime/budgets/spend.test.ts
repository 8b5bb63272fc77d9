import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testBackends } from '../../testing/db.js';
import { migrate, type Db } from '../store/index.js';
import { spendReport, type SpendQuery } from './spend.js';

const FROM = new Date('2026-07-01T00:00:00Z');
const TO = new Date('2026-07-02T00:00:00Z');
const query = (over: Partial<SpendQuery> = {}): SpendQuery => ({
  organizationId: 'acme',
  groupBy: 'client',
  from: FROM,
  to: TO,
  ...over,
});

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`spend on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let n = 0;
    const row = (o: {
      org?: string;
      client?: string;
      model?: string | null;
      tokens?: number | null;
      metadata?: Record<string, unknown>;
      at?: string;
    }) =>
      db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, model, total_tokens, metadata, created_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::timestamptz)`,
        [
          `aud_${n++}`,
          o.org ?? 'acme',
          o.client ?? 'app',
          o.model === undefined ? 'gpt-4o' : o.model,
          o.tokens === undefined ? 10 : o.tokens,
          JSON.stringify(o.metadata ?? {}),
          o.at ?? '2026-07-01T12:00:00Z',
        ],
      );

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
    });
    afterAll(async () => {
      await db?.close();
    });
    beforeEach(async () => {
      await db.query('DELETE FROM audit_entries');
    });

    it('sums requests, tokens and cost per group, with the unpriced calls and a total', async () => {
      await row({ client: 'a', tokens: 100, metadata: { cost_usd: 0.000001 } });
      await row({ client: 'a', tokens: 200, metadata: { cost_usd: 0.2 } });
      await row({ client: 'b', tokens: 5000 });
      // not a number: no price
      await row({ client: 'b', tokens: 1, metadata: { cost_usd: 'free' } });
      // prompt and completion without a total
      await db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, model, prompt_tokens, completion_tokens, metadata, created_at)
         VALUES ('aud_split', 'acme', 'c', 'm', 3, 4, '{"cost_usd": 0.3}', '2026-07-01T00:00:00Z')`,
      );
      expect(await spendReport(db, query())).toEqual({
        groups: [
          { key: 'c', requests: 1, tokens: 7, costUsd: 0.3, unpricedRequests: 0 },
          { key: 'a', requests: 2, tokens: 300, costUsd: 0.200001, unpricedRequests: 0 },
          { key: 'b', requests: 2, tokens: 5001, costUsd: 0, unpricedRequests: 2 },
        ],
        total: { requests: 5, tokens: 5308, costUsd: 0.500001, unpricedRequests: 2 },
        truncated: false,
      });
    });

    it("counts the organization's model calls within from (included) and to (excluded) only", async () => {
      await row({ org: 'globex' });
      await row({ model: null, tokens: null, metadata: { event: 'client.revoked' } });
      await row({ at: '2026-06-30T23:59:59.999Z' });
      await row({ at: '2026-07-02T00:00:00Z' });
      await row({ client: 'kept', at: '2026-07-01T23:59:59.999Z' });
      await row({ client: 'tokens-only', model: null, tokens: 3 });
      const r = await spendReport(db, query());
      expect(r.groups.map((g) => g.key)).toEqual(['kept', 'tokens-only']);
      expect(r.total.requests).toBe(2);
    });

    it("narrows to a tenant's rows", async () => {
      await row({ client: 'eu-app', metadata: { tenant_id: 'eu' } });
      await row({ client: 'us-app', metadata: { tenant_id: 'us' } });
      await row({ client: 'org-app' });
      const r = await spendReport(db, query({ tenantId: 'eu' }));
      expect(r.groups.map((g) => g.key)).toEqual(['eu-app']);
    });

    it('answers an empty range with no groups and a zero total', async () => {
      expect(await spendReport(db, query({ groupBy: 'model' }))).toEqual({
        groups: [],
        total: { requests: 0, tokens: 0, costUsd: 0, unpricedRequests: 0 },
        truncated: false,
      });
    });

    it('lists at most 1,000 groups, the costliest, and says it left some out', async () => {
      await db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, model, total_tokens, metadata, created_at)
         SELECT 'aud_many_' || i, 'acme', 'c' || i, 'm', i, jsonb_build_object('cost_usd', i / 1000.0),
                '2026-07-01T06:00:00Z'
         FROM generate_series(1, 1005) AS i`,
      );
      const r = await spendReport(db, query());
      expect(r.groups).toHaveLength(1000);
      expect(r.groups[0]).toEqual({ key: 'c1005', requests: 1, tokens: 1005, costUsd: 1.005, unpricedRequests: 0 });
      expect(r.groups.at(-1)!.key).toBe('c6');
      expect(r.truncated).toBe(true);
      expect(r.total).toMatchObject({ requests: 1005, tokens: (1005 * 1006) / 2 });
    });
  });
}
