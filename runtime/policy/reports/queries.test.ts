import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import type { PolicyResult } from '../types.js';
import { PolicyReports, PolicyReportTimeoutError } from './queries.js';

/** The report's clock: every row's time is relative to it. */
const NOW = new Date('2030-01-01T12:00:00.000Z');
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

const result = (
  policy: string,
  mode: PolicyResult['mode'],
  would: PolicyResult['would'],
  decision: PolicyResult['decision'],
  extra: Partial<PolicyResult> = {},
): PolicyResult => ({ policy, mode, would, decision, ...extra });
const blocked = result('p-block', 'enforce', 'block', 'block');
const shadowWouldBlock = result('p-shadow', 'audit', 'block', 'audit', { shadowOf: 'p-block' });

let seq = 0;
/** An audit entry as the gateway writes it, at a chosen time. */
async function auditRow(
  db: Db,
  at: Date,
  row: { org?: string; client?: string; metadata: Record<string, unknown> },
): Promise<void> {
  await db.query(
    `INSERT INTO audit_entries (id, organization_id, client_id, context_id, metadata, created_at)
     VALUES ($1, $2, $3, NULL, $4::jsonb, $5::timestamptz)`,
    [`aud_test${seq++}`, row.org ?? 'org-a', row.client ?? 'c1', JSON.stringify(row.metadata), at.toISOString()],
  );
}

/**
 * Pre-checks and audit entries of several modes and decisions, two organizations, a day and more. The expected
 * counts of the tests below are worked out from this list.
 */
async function seed(db: Db, store: Store): Promise<void> {
  const precheck = (
    contextId: string,
    at: Date,
    clientId: string,
    evaluated: string[],
    results: PolicyResult[],
    tenantId?: string,
  ) =>
    store.contexts.results.record({
      contextId,
      organizationId: 'org-a',
      clientId,
      tenantId,
      evaluated,
      results,
      createdAt: at,
    });
  const all = ['p-block', 'p-audit', 'p-shadow'];
  // 1: blocked by p-block, and the shadow agrees (would block)
  await precheck('ctx_1', ago(10), 'c1', all, [blocked, shadowWouldBlock], 't1');
  // 2: only the audited policy matched (a would-be block)
  await precheck('ctx_2', ago(30), 'c2', all, [result('p-audit', 'audit', 'block', 'audit')]);
  // 3: a governed call two hours ago: only the shadow matched (a disagreement)
  await auditRow(db, ago(120), {
    metadata: {
      governed: true,
      decision: 'audit',
      policies_evaluated: ['p-block', 'p-shadow'],
      policy_results: [shadowWouldBlock],
    },
  });
  // 4: the caller's own POST /api/audit/llm-call entry, whose metadata it chose: never counted
  await auditRow(db, ago(20), {
    metadata: { context_approved: true, policies_evaluated: ['p-block'], policy_results: [blocked] },
  });
  // 5: older than a day
  await auditRow(db, ago(25 * 60), { metadata: { policies_evaluated: ['p-block'], policy_results: [blocked] } });
  // 6: another organization, five minutes ago
  await auditRow(db, ago(5), {
    org: 'org-b',
    client: 'b1',
    metadata: { policies_evaluated: ['p-block'], policy_results: [blocked] },
  });
  // 7: a connector call of tenant t2 three hours ago, the block carried out as a warning (warn mode)
  await auditRow(db, ago(180), {
    client: 'c3',
    metadata: {
      tenant_id: 't2',
      policies_evaluated: ['p-block'],
      policy_results: [result('p-block', 'warn', 'block', 'warn')],
    },
  });
  // 8: exempted by a PolicyException
  await precheck(
    'ctx_8',
    ago(40),
    'c1',
    ['p-block'],
    [result('p-block', 'enforce', 'block', 'exempted', { exception: 'x' })],
  );
  // 9: metadata that is not what the gateway writes: ignored, not an error
  await auditRow(db, ago(15), { metadata: { policies_evaluated: 'p-block', policy_results: { policy: 'p-block' } } });
  // 11: an answer masked by a redact policy, which is not listed as evaluated (output redactions are not)
  await auditRow(db, ago(50), {
    metadata: { policies_evaluated: ['p-other'], policy_results: [result('p-redact', 'enforce', 'redact', 'redact')] },
  });
  // 10: after the report's clock
  await auditRow(db, new Date(NOW.getTime() + 60_000), {
    metadata: { policies_evaluated: ['p-block'], policy_results: [blocked] },
  });
}

const zero = { block: 0, warn: 0, log: 0, audit: 0, exempted: 0, redact: 0 };

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`policy reports on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let reports: PolicyReports;

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      await seed(db, storeOn(db));
      reports = new PolicyReports(db);
    });
    afterAll(async () => {
      await db?.close();
    });

    it("counts a policy's evaluations, matches and violations of the caller's organization in both windows", async () => {
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-a', now: NOW });
      expect(r['24h']).toMatchObject({
        from: ago(24 * 60).toISOString(),
        to: NOW.toISOString(),
        evaluations: 5,
        matched: 3,
        violations: 2,
      });
      expect(r['1h']).toMatchObject({ from: ago(60).toISOString(), evaluations: 3, matched: 2, violations: 1 });
      expect(r['24h'].shadow).toBeUndefined();
    });

    it('counts each decision by the mode the policy ran in', async () => {
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-a', now: NOW });
      expect(r['24h'].decisions).toEqual({
        by_decision: { ...zero, block: 1, warn: 1, exempted: 1 },
        by_mode: { enforce: { ...zero, block: 1, exempted: 1 }, warn: { ...zero, warn: 1 }, audit: zero },
      });
      expect(r['1h'].decisions.by_decision).toEqual({ ...zero, block: 1, exempted: 1 });
    });

    it('counts an audited policy that would have blocked as a violation', async () => {
      const r = await reports.report({ policy: 'p-audit', organizationId: 'org-a', now: NOW });
      expect(r['1h']).toMatchObject({ evaluations: 2, matched: 1, violations: 1 });
      expect(r['1h'].decisions.by_mode.audit).toEqual({ ...zero, audit: 1 });
    });

    it('lists the clients and tenants the policy matched most', async () => {
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-a', now: NOW });
      expect(r['24h'].clients).toEqual([
        { client_id: 'c1', count: 2 },
        { client_id: 'c3', count: 1 },
      ]);
      expect(r['24h'].tenants).toEqual([
        { tenant_id: 't1', count: 1 },
        { tenant_id: 't2', count: 1 },
      ]);
      expect(r['1h'].clients).toEqual([{ client_id: 'c1', count: 2 }]);
      expect(r['1h'].tenants).toEqual([{ tenant_id: 't1', count: 1 }]);
    });

    it("counts only a tenant's calls for a caller narrowed to it", async () => {
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-a', tenantId: 't2', now: NOW });
      expect(r['24h']).toMatchObject({
        evaluations: 1,
        matched: 1,
        violations: 1,
        clients: [{ client_id: 'c3', count: 1 }],
      });
      expect(r['1h'].evaluations).toBe(0);
    });

    it('counts nothing of another organization', async () => {
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-b', now: NOW });
      expect(r['24h']).toMatchObject({ evaluations: 1, violations: 1, clients: [{ client_id: 'b1', count: 1 }] });
      expect((await reports.report({ policy: 'p-block', organizationId: 'org-c', now: NOW }))['24h']).toMatchObject({
        evaluations: 0,
        matched: 0,
        violations: 0,
        decisions: { by_decision: zero },
        clients: [],
        tenants: [],
      });
    });

    it('shows where a shadow policy and the policy it shadows disagree', async () => {
      const r = await reports.report({ policy: 'p-shadow', shadowOf: 'p-block', organizationId: 'org-a', now: NOW });
      expect(r['24h'].shadow).toEqual({
        shadow_of: 'p-block',
        compared: 3,
        disagreements: 1,
        matched_only_by_this: 1,
        matched_only_by_shadowed: 0,
      });
      expect(r['1h'].shadow).toMatchObject({ compared: 2, disagreements: 0 });
    });

    it('moves a call out of the windows as the clock passes: out of the hour, then out of the day', async () => {
      const later = new Date(NOW.getTime() + 55 * 60_000);
      const r = await reports.report({ policy: 'p-block', organizationId: 'org-a', now: later });
      // rows 1, 2 and 8 (10, 30, 40 minutes before NOW) left the hour; row 10 (NOW + 1 min) entered it
      expect(r['1h']).toMatchObject({ evaluations: 1, violations: 1 });
      const nextDay = new Date(NOW.getTime() + 23 * 60 * 60_000);
      expect((await reports.report({ policy: 'p-block', organizationId: 'org-a', now: nextDay }))['24h']).toMatchObject(
        {
          // left: rows 3 and 7 (two and three hours before NOW); in: 1, 2, 8 and 10
          evaluations: 4,
        },
      );
    });

    it("summarises every organization's calls per policy for Policy.status, zeros for a policy without calls", async () => {
      const s = await reports.summaries(['p-block', 'p-shadow', 'p-none'], NOW);
      expect(s.get('p-block')).toEqual({
        last1h: { evaluations: 4, violations: 2 },
        last24h: { evaluations: 6, violations: 3, byDecision: { ...zero, block: 2, warn: 1, exempted: 1 } },
      });
      expect(s.get('p-shadow')).toEqual({
        last1h: { evaluations: 2, violations: 1 },
        last24h: { evaluations: 3, violations: 2, byDecision: { ...zero, audit: 2 } },
      });
      expect(s.get('p-none')).toEqual({
        last1h: { evaluations: 0, violations: 0 },
        last24h: { evaluations: 0, violations: 0, byDecision: zero },
      });
      expect((await reports.summaries([], NOW)).size).toBe(0);
    });

    it('counts a result of a policy the call does not list as evaluated (an output redaction) as an evaluation', async () => {
      expect((await reports.summaries(['p-redact'], NOW)).get('p-redact')).toEqual({
        last1h: { evaluations: 1, violations: 0 },
        last24h: { evaluations: 1, violations: 0, byDecision: { ...zero, redact: 1 } },
      });
      const r = await reports.report({ policy: 'p-redact', organizationId: 'org-a', now: NOW });
      expect(r['1h']).toMatchObject({ evaluations: 1, matched: 1, violations: 0 });
      expect(r['1h'].decisions.by_decision).toEqual({ ...zero, redact: 1 });
    });
  });
}

describe('a report past its deadline', () => {
  afterEach(() => vi.useRealTimers());
  const ask = (db: ConstructorParameters<typeof PolicyReports>[0]) =>
    new PolicyReports(db, { timeoutMs: 50 }).report({ policy: 'p', organizationId: 'o', now: NOW });

  it('fails with PolicyReportTimeoutError when the database cancels the statement (57014)', async () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const err = await ask({ transaction: () => Promise.reject(cancelled) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PolicyReportTimeoutError);
    expect(err).toMatchObject({ timeoutMs: 50, message: 'the policy report did not finish within 50 ms' });
  });

  it('fails with it when the database does not answer at all (the embedded one cannot cancel)', async () => {
    vi.useFakeTimers();
    const pending = ask({ transaction: () => new Promise<never>(() => {}) }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1050);
    expect(await pending).toBeInstanceOf(PolicyReportTimeoutError);
  });

  it('passes other errors on as they are', async () => {
    const broken = new Error('relation "audit_entries" does not exist');
    expect(await ask({ transaction: () => Promise.reject(broken) }).catch((e: unknown) => e)).toBe(broken);
  });
});
