import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, MIGRATIONS, storeOn, type Db, type Store } from '../index.js';

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`store on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let store: Store;

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      store = storeOn(db);
      console.info(`[store] tests running against ${backend.name}`);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('applies every migration once and records it', async () => {
      const again = await migrate(db);
      expect(again.applied).toEqual([]);
      expect(again.current).toBe(MIGRATIONS.at(-1)!.version);
      const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
    });

    it('creates a client whose key is stored hashed and found again by the key', async () => {
      const { client, apiKey } = await store.clients.create({
        organizationId: 'org-a',
        name: 'Travel App',
        description: 'web',
      });
      expect(apiKey).toMatch(/^client-travel-app-prod-[A-Za-z0-9_-]{43}$/);
      const { rows } = await db.query<{ api_key_hash: string }>('SELECT api_key_hash FROM clients WHERE id = $1', [
        client.id,
      ]);
      expect(rows[0]!.api_key_hash).not.toContain(apiKey);
      expect((await store.clients.findByApiKey(apiKey))?.id).toBe(client.id);
      expect(await store.clients.findByApiKey(`${apiKey}x`)).toBeUndefined();
    });

    it('lists clients per organization only', async () => {
      await store.clients.create({ organizationId: 'org-b', name: 'b1' });
      const listA = await store.clients.list('org-a');
      const listB = await store.clients.list('org-b');
      expect(listA.every((c) => c.organizationId === 'org-a')).toBe(true);
      expect(listB.map((c) => c.name)).toEqual(['b1']);
    });

    it('finds a revoked key as revoked, and revokes it once', async () => {
      const { client, apiKey } = await store.clients.create({ organizationId: 'org-a', name: 'gone' });
      expect(await store.clients.revoke('org-b', client.id)).toBe(false);
      expect(await store.clients.revoke('org-a', client.id)).toBe(true);
      expect(await store.clients.revoke('org-a', client.id)).toBe(false);
      expect((await store.clients.findByApiKey(apiKey))?.revokedAt).toBeInstanceOf(Date);
      expect(await store.clients.get('org-a', client.id)).toBeUndefined();
      expect((await store.clients.list('org-a')).map((c) => c.id)).not.toContain(client.id);
    });

    it('records a pre-check context without the query text and reads it back per organization', async () => {
      const now = new Date();
      const ctx = await store.contexts.record({
        organizationId: 'org-a',
        clientId: 'cli_1',
        userToken: 'user-1',
        query: 'my SSN is 123-45-6789',
        approved: false,
        policies: ['pii'],
        blockReason: 'PII detected: US SSN',
        createdAt: now,
        expiresAt: new Date(now.getTime() + 300_000),
      });
      expect(ctx.id).toMatch(/^ctx_/);
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM precheck_contexts WHERE id = $1', [
        ctx.id,
      ]);
      expect(JSON.stringify(rows[0])).not.toContain('123-45-6789');
      const back = await store.contexts.get('org-a', ctx.id);
      expect(back).toMatchObject({ approved: false, policies: ['pii'], blockReason: 'PII detected: US SSN' });
      expect(await store.contexts.get('org-b', ctx.id)).toBeUndefined();
    });

    it('commits an audit entry that references its context', async () => {
      const now = new Date();
      const ctx = await store.contexts.record({
        organizationId: 'org-a',
        clientId: 'cli_1',
        userToken: 'u',
        query: 'q',
        approved: true,
        policies: [],
        createdAt: now,
        expiresAt: new Date(now.getTime() + 300_000),
      });
      const entry = await store.audit.record({
        organizationId: 'org-a',
        clientId: 'cli_1',
        contextId: ctx.id,
        model: 'gpt-4o',
        prompt: 'hi',
        response: 'hello',
        latencyMs: 12.5,
        promptTokens: 3,
        completionTokens: 5,
        totalTokens: 8,
        metadata: { sdk: 'ts' },
      });
      const back = await store.audit.get('org-a', entry.id);
      expect(back).toMatchObject({
        contextId: ctx.id,
        model: 'gpt-4o',
        latencyMs: 12.5,
        totalTokens: 8,
        metadata: { sdk: 'ts' },
      });
    });

    it('rejects an audit entry naming a context that does not exist', async () => {
      await expect(
        store.audit.record({ organizationId: 'org-a', clientId: 'c', contextId: 'ctx_missing' }),
      ).rejects.toThrow();
    });

    it('rolls a transaction back when its function throws', async () => {
      const before = await store.audit.count('org-t');
      await expect(
        db.transaction(async (tx) => {
          await storeOn({ ...db, query: tx.query } as Db).audit.record({
            organizationId: 'org-t',
            clientId: 'c',
            contextId: null,
          });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await store.audit.count('org-t')).toBe(before);
    });

    it('purges expired contexts that no audit entry references', async () => {
      const past = new Date(Date.now() - 3_600_000);
      const ctx = await store.contexts.record({
        organizationId: 'org-p',
        clientId: 'c',
        userToken: 'u',
        query: 'q',
        approved: true,
        policies: [],
        createdAt: past,
        expiresAt: new Date(past.getTime() + 1000),
      });
      expect(await store.contexts.purgeExpired(new Date())).toBeGreaterThanOrEqual(1);
      expect(await store.contexts.get('org-p', ctx.id)).toBeUndefined();
    });

    it('compares context and audit ids bytewise and indexes context expiry by block range (migration 2)', async () => {
      const { rows: cols } = await db.query<{ table_name: string; column_name: string; collation_name: string | null }>(
        `SELECT table_name, column_name, collation_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name IN ('precheck_contexts', 'audit_entries')
            AND column_name IN ('id', 'context_id') ORDER BY 1, 2`,
      );
      expect(cols.map((c) => `${c.table_name}.${c.column_name}:${c.collation_name}`)).toEqual([
        'audit_entries.context_id:C',
        'audit_entries.id:C',
        'precheck_contexts.id:C',
      ]);
      const { rows: idx } = await db.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename = 'precheck_contexts' AND indexdef LIKE '%expires_at%'`,
      );
      expect(idx).toHaveLength(1);
      expect(idx[0]!.indexdef).toContain('USING brin (expires_at)');
      // The audit's reference to its context still holds under the new collation.
      const ctx = await store.contexts.record({
        organizationId: 'org-m',
        clientId: 'c',
        userToken: 'u',
        query: 'q',
        approved: true,
        policies: [],
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 60_000),
      });
      await store.audit.record({ organizationId: 'org-m', clientId: 'c', contextId: ctx.id });
      await expect(
        store.audit.record({ organizationId: 'org-m', clientId: 'c', contextId: `${ctx.id}x` }),
      ).rejects.toThrow(/foreign key/);
    });
  });
}

const pgBackend = testBackends().find((b) => b.name === 'postgres')!;
(pgBackend.skip ? describe.skip : describe)('migrations on postgres under concurrency', () => {
  it('two processes migrating the same database at once apply each migration once', async () => {
    const a = await pgBackend.open();
    const { openPostgres } = await import('../postgres.js');
    const b = await openPostgres({ url: process.env.DATABASE_URL!, schema: a.schema });
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      expect([...ra.applied, ...rb.applied].sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await b.close();
      await a.close();
    }
  });
});
