import { beforeEach, describe, expect, it } from 'vitest';
import { storeSuite } from '../../../testing/db.js';
import type { AuditEntry, AuditScope, Store } from '../index.js';

const scope = (over: Partial<AuditScope> = {}): AuditScope => ({
  organizationId: 'org-a',
  bound: null,
  narrowed: null,
  ...over,
});

const NOW = new Date('2026-03-02T12:30:20.000Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

storeSuite(
  'audit queries',
  async (db) => {
    await db.query('DELETE FROM audit_entries');
  },
  (on) => {
    /** Writes a row through the writer, then dates it `at` (the writer dates rows with the wall clock). */
    async function row(
      at: Date,
      metadata: Record<string, unknown>,
      over: { organizationId?: string; clientId?: string } = {},
    ): Promise<string> {
      const e = await on.store().audit.record({
        organizationId: over.organizationId ?? 'org-a',
        clientId: over.clientId ?? 'cli_1',
        contextId: null,
        prompt: 'masked text',
        metadata,
      });
      await on.db().query('UPDATE audit_entries SET created_at = $2 WHERE id = $1', [e.id, at]);
      return e.id;
    }

    const ids = (entries: readonly AuditEntry[]) => entries.map((e) => e.id);
    const search = (filter: Parameters<Store['audit']['search']>[1], s = scope()) =>
      on
        .store()
        .audit.search(s, filter, { limit: 50 })
        .then((p) => ids(p.entries));

    describe('search', () => {
      let rows: Record<string, string>;
      beforeEach(async () => {
        rows = {
          blocked: await row(minutesAgo(1), {
            decision: 'blocked_input',
            surface: 'llm',
            via: 'execute',
            policies: ['builtin-pii'],
            policies_evaluated: ['builtin-pii', 'builtin-secrets'],
            policy_results: [{ policy: 'builtin-pii', mode: 'enforce', would: 'block', decision: 'block' }],
          }),
          warned: await row(
            minutesAgo(2),
            {
              decision: 'warn',
              surface: 'pre-check',
              via: 'audit',
              policies_evaluated: ['builtin-pii', 'builtin-secrets'],
              policy_results: [{ policy: 'builtin-secrets', mode: 'warn', would: 'warn', decision: 'warn' }],
            },
            { clientId: 'cli_2' },
          ),
          step: await row(minutesAgo(3), {
            decision: 'allowed',
            surface: 'plan',
            via: 'plan_step',
            agent: 'travel',
            policies_evaluated: ['builtin-pii'],
          }),
          connector: await row(minutesAgo(4), {
            decision: 'blocked_input',
            surface: 'mcp',
            via: 'mcp',
            policies: ['builtin-dangerous-sql'],
            connector_call: { decision: 'blocked', policies: ['builtin-dangerous-sql'] },
          }),
          tenantT1: await row(minutesAgo(5), { decision: 'allowed', surface: 'llm', via: 'chat', tenant_id: 't1' }),
          tenantT2: await row(minutesAgo(6), { decision: 'allowed', surface: 'llm', via: 'chat', tenant_id: 't2' }),
          odd: await row(minutesAgo(7), { decision: 7, policies: 'builtin-pii', policy_results: { policy: 'x' } }),
        };
        await row(minutesAgo(1), { decision: 'blocked_input', policies: ['builtin-pii'] }, { organizationId: 'org-b' });
      });

      it.each([
        { name: 'lists the organization newest first with no filter', filter: {}, want: 'all' },
        { name: 'finds a decision', filter: { decision: 'warn' }, want: ['warned'] },
        { name: 'finds a connector row by its own decision', filter: { decision: 'blocked' }, want: ['connector'] },
        {
          name: 'finds blocked rows of every surface',
          filter: { decision: 'blocked_input' },
          want: ['blocked', 'connector'],
        },
        {
          name: 'finds the rows a policy matched, not those it was only evaluated on',
          filter: { policy: 'builtin-pii' },
          want: ['blocked'],
        },
        { name: 'finds a policy of policy_results', filter: { policy: 'builtin-secrets' }, want: ['warned'] },
        { name: 'finds a surface', filter: { surface: 'mcp' }, want: ['connector'] },
        { name: 'finds a via', filter: { via: 'chat' }, want: ['tenantT1', 'tenantT2'] },
        { name: 'finds a client', filter: { client: 'cli_2' }, want: ['warned'] },
        { name: 'finds an agent', filter: { agent: 'travel' }, want: ['step'] },
        {
          name: 'bounds the time: from inclusive, to exclusive',
          filter: { from: minutesAgo(4), to: minutesAgo(2) },
          want: ['step', 'connector'],
        },
        {
          name: 'combines filters',
          filter: { decision: 'blocked_input', policy: 'builtin-dangerous-sql' },
          want: ['connector'],
        },
      ])('$name', async ({ filter, want }) => {
        const expected =
          want === 'all'
            ? ['blocked', 'warned', 'step', 'connector', 'tenantT1', 'tenantT2', 'odd'].map((k) => rows[k])
            : (want as string[]).map((k) => rows[k]);
        expect(await search(filter)).toEqual(expected);
      });

      it.each([
        {
          name: 'a bound credential sees its tenant only',
          s: { bound: 't1' },
          want: ['tenantT1'],
        },
        {
          name: 'a narrowed credential sees its tenant and the organization-wide rows',
          s: { narrowed: 't1' },
          want: ['blocked', 'warned', 'step', 'connector', 'tenantT1', 'odd'],
        },
      ])('$name', async ({ s, want }) => {
        expect(await search({}, scope(s))).toEqual(want.map((k) => rows[k]));
      });

      it('never shows another organization', async () => {
        expect(await search({ policy: 'builtin-pii' }, scope({ organizationId: 'org-c' }))).toEqual([]);
        expect(await search({}, scope({ organizationId: 'org-b' }))).toHaveLength(1);
      });

      it('returns the rows as stored, metadata included', async () => {
        const [e] = (await on.store().audit.search(scope(), { agent: 'travel' }, { limit: 1 })).entries;
        expect(e).toMatchObject({ id: rows.step, clientId: 'cli_1', prompt: 'masked text' });
        expect(e!.metadata).toMatchObject({ via: 'plan_step', agent: 'travel' });
      });
    });

    describe('pages', () => {
      it('walks every row once across pages while rows are written, ties on created_at included', async () => {
        const same = minutesAgo(10);
        const written: string[] = [];
        for (let i = 0; i < 7; i++) written.push(await row(i < 4 ? same : minutesAgo(20 + i), { decision: 'allowed' }));
        const seen: string[] = [];
        let pageToken: string | undefined;
        let pages = 0;
        do {
          const page = await on.store().audit.search(scope(), {}, { limit: 3, ...(pageToken ? { pageToken } : {}) });
          seen.push(...ids(page.entries));
          pageToken = page.nextPageToken;
          // a row newer than every page so far must not shift what follows
          await row(NOW, { decision: 'allowed' });
          pages++;
        } while (pageToken);
        expect(pages).toBe(3);
        expect(seen).toHaveLength(7);
        expect(new Set(seen)).toEqual(new Set(written));
      });

      it('says there is no next page when the last page is exactly full', async () => {
        for (let i = 0; i < 2; i++) await row(minutesAgo(i), {});
        const page = await on.store().audit.search(scope(), {}, { limit: 2 });
        expect(page.entries).toHaveLength(2);
        expect(page.nextPageToken).toBeUndefined();
      });

      it.each([
        { name: 'not base64url', t: 'a+b/c=' },
        { name: 'not JSON', t: Buffer.from('nope').toString('base64url') },
        { name: 'a wrong shape', t: token({ at: 'x' }) },
        { name: 'a timestamp not of a page', t: token(['2026-01-01T00:00:00Z', 'aud_1']) },
        { name: 'an empty id', t: token(['2026-01-01T00:00:00.000000Z', '']) },
      ])('refuses a page token that is $name with a RangeError', async ({ t }) => {
        await expect(on.store().audit.search(scope(), {}, { limit: 10, pageToken: t })).rejects.toBeInstanceOf(
          RangeError,
        );
      });
    });

    describe('summary', () => {
      it('counts each 1-minute bucket of the last hour, with empty buckets and percentiles of steward_ms', async () => {
        // NOW is 12:30:20: the last bucket is 12:30, the first 11:31
        for (const ms of [1, 2, 3, 4, 100]) await row(minutesAgo(0), { decision: 'allowed', steward_ms: ms });
        await row(minutesAgo(0), { decision: 'blocked_input', steward_ms: 5 });
        await row(minutesAgo(2), { decision: 'blocked_output' });
        await row(minutesAgo(2), { connector_call: { decision: 'blocked' }, decision: 'blocked_input' });
        await row(minutesAgo(2), { decision: 'redacted', redactions: { ssn: 1 } });
        await row(minutesAgo(2), { decision: 'allowed', redactions: { email: 2 } });
        await row(minutesAgo(2), { decision: 'allowed', redactions: {} });
        await row(minutesAgo(2), { decision: 'warn', steward_ms: 'fast' });
        await row(minutesAgo(61), { decision: 'blocked_input' });
        await row(minutesAgo(0), { decision: 'blocked_input' }, { organizationId: 'org-b' });

        const s = await on.store().audit.summary(scope(), '1h', NOW);
        expect(s.window).toBe('1h');
        expect(s.bucketSeconds).toBe(60);
        expect(s.buckets).toHaveLength(60);
        expect(s.buckets[0]!.start.toISOString()).toBe('2026-03-02T11:31:00.000Z');
        expect(s.buckets.at(-1)!.start.toISOString()).toBe('2026-03-02T12:30:00.000Z');
        // percentile_cont over 1, 2, 3, 4, 5, 100: the median interpolates 3 and 4, p99 0.95 of the way from 5 to 100
        expect(s.buckets.at(-1)).toMatchObject({ requests: 6, blocks: 1, redactions: 0, warnings: 0, p50Ms: 3.5 });
        expect(s.buckets.at(-1)!.p99Ms).toBeCloseTo(95.3, 1);
        expect(s.buckets.at(-3)).toMatchObject({
          requests: 6,
          blocks: 2,
          redactions: 2,
          warnings: 1,
          p50Ms: null,
          p99Ms: null,
        });
        const quiet = s.buckets.filter((_, i) => i !== 59 && i !== 57);
        expect(quiet.every((b) => b.requests === 0 && b.blocks === 0 && b.p50Ms === null)).toBe(true);
      });

      it.each([
        { window: '24h' as const, bucketSeconds: 900, buckets: 96 },
        { window: '7d' as const, bucketSeconds: 7200, buckets: 84 },
      ])('covers $window with $buckets buckets of $bucketSeconds s', async ({ window, bucketSeconds, buckets }) => {
        await row(minutesAgo(0), { decision: 'warn', steward_ms: 2 });
        await row(new Date(NOW.getTime() - bucketSeconds * 1000 * buckets), { decision: 'warn' });
        const s = await on.store().audit.summary(scope(), window, NOW);
        expect(s).toMatchObject({ window, bucketSeconds });
        expect(s.buckets).toHaveLength(buckets);
        expect(s.buckets.reduce((n, b) => n + b.warnings, 0)).toBe(1);
        expect(s.buckets.at(-1)).toMatchObject({ requests: 1, warnings: 1, p50Ms: 2, p99Ms: 2 });
      });

      it('counts the tenant scope only', async () => {
        await row(minutesAgo(0), { decision: 'warn', tenant_id: 't1' });
        await row(minutesAgo(0), { decision: 'warn', tenant_id: 't2' });
        await row(minutesAgo(0), { decision: 'warn' });
        const bound = await on.store().audit.summary(scope({ bound: 't1' }), '1h', NOW);
        expect(bound.buckets.at(-1)!.warnings).toBe(1);
        const narrowed = await on.store().audit.summary(scope({ narrowed: 't1' }), '1h', NOW);
        expect(narrowed.buckets.at(-1)!.warnings).toBe(2);
      });
    });
  },
);
