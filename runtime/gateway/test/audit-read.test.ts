import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

const SSN = '123-45-6789';

describe('the audit API (/api/v1/audit)', () => {
  let gw: TestGateway;
  const as = (key: string, extra: Record<string, string> = {}) => ({ 'x-license-key': key, ...extra });
  const get = (url: string, key = gw.keys.acme, extra: Record<string, string> = {}) =>
    gw.app.inject({ method: 'GET', url, headers: as(key, extra) });
  let precheckAudit: string;
  let callerAudit: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    // A pre-check of an SSN: the block is audited by the gateway (its caller calls no model, so records nothing).
    const pre = await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: as(gw.keys.acme),
      payload: { query: `My SSN is ${SSN}`, client_id: 'console-test', user_token: 'user-1' },
    });
    expect(pre.json()).toMatchObject({ approved: false, policies: expect.arrayContaining(['builtin-pii']) });
    const rows = await gw.store.audit.search(
      { organizationId: 'acme', bound: null, narrowed: null },
      { surface: 'pre-check' },
      { limit: 10 },
    );
    expect(rows.entries.map((e) => e.contextId)).toEqual([pre.json().context_id]);
    precheckAudit = rows.entries[0]!.id;
    // An approved pre-check and the caller's audit of it, whose own copy of the prompt is stored masked.
    const approved = await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: as(gw.keys.acme),
      payload: { query: 'What is the weather?', client_id: 'console-test', user_token: 'user-1' },
    });
    expect(approved.json()).toMatchObject({ approved: true });
    const audited = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: as(gw.keys.acme),
      payload: { context_id: approved.json().context_id, client_id: 'console-test', prompt: `My SSN is ${SSN}` },
    });
    expect(audited.statusCode).toBe(200);
    callerAudit = audited.json().audit_id;
    // A governed call with the same SSN, blocked and audited by the gateway with its text masked.
    const blocked = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      headers: as(gw.keys.acme, { 'x-tenant-id': 'eu' }),
      payload: { prompt: `My SSN is ${SSN}, file my taxes`, mode: 'chat' },
    });
    expect(blocked.statusCode).toBe(403);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('finds the blocked rows by policy and decision, with the policies that matched', async () => {
    const res = await get('/api/v1/audit/entries?policy=builtin-pii&decision=blocked_input');
    expect(res.statusCode).toBe(200);
    const { entries, next_page_token } = res.json();
    expect(next_page_token).toBeUndefined();
    expect(entries).toHaveLength(2);
    expect(entries.map((e: { id: string }) => e.id)).toContain(precheckAudit);
    for (const e of entries) expect(e).toMatchObject({ decision: 'blocked_input', policies: ['builtin-pii'] });
    const governed = entries.find((e: { id: string }) => e.id !== precheckAudit);
    expect(governed).toMatchObject({ surface: 'llm', tenant_id: 'eu', stored_text: 'masked' });
    expect(entries.find((e: { id: string }) => e.id === precheckAudit)).toMatchObject({
      surface: 'pre-check',
      via: 'pre_check',
      client_id: 'console-test',
      prompt: expect.stringContaining('[REDACTED'),
    });
    expect(governed.steward_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(entries)).not.toContain(SSN);
  });

  it('shows one entry with its metadata and no SSN', async () => {
    const [governed] = (await get('/api/v1/audit/entries?surface=llm&decision=blocked_input')).json().entries;
    const res = await get(`/api/v1/audit/entries/${governed.id}`);
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail).toMatchObject({ id: governed.id, decision: 'blocked_input', policies: ['builtin-pii'] });
    expect(detail.metadata).toMatchObject({
      governed: true,
      policies: ['builtin-pii'],
      block_reason: expect.any(String),
    });
    expect(detail.prompt).toContain('[REDACTED');
    expect(res.body).not.toContain(SSN);
    // The row the caller recorded for its pre-check keeps the caller's prompt masked too.
    const recorded = await get(`/api/v1/audit/entries/${callerAudit}`);
    expect(recorded.json()).toMatchObject({ prompt: expect.stringContaining('[REDACTED') });
    expect(recorded.json().metadata).toMatchObject({ stored_text: 'masked', prompt_redactions: { us_ssn: 1 } });
    expect(recorded.body).not.toContain(SSN);
  });

  it('counts the blocks in the summary of the last hour', async () => {
    const res = await get('/api/v1/audit/summary?window=1h');
    expect(res.statusCode).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({ window: '1h', bucket_seconds: 60 });
    expect(s.buckets).toHaveLength(60);
    const sum = (k: string) => s.buckets.reduce((n: number, b: Record<string, number>) => n + b[k]!, 0);
    expect(sum('blocks')).toBe(2);
    expect(sum('requests')).toBe(3);
  });

  it("shows another organization's key nothing, and a tenant key its tenant's rows only", async () => {
    expect((await get('/api/v1/audit/entries', gw.keys.globex)).json().entries).toEqual([]);
    const [any] = (await get('/api/v1/audit/entries')).json().entries;
    expect((await get(`/api/v1/audit/entries/${any.id}`, gw.keys.globex)).json().code).toBe('AUDIT_ENTRY_NOT_FOUND');
    const summary = (await get('/api/v1/audit/summary', gw.keys.globex)).json();
    expect(summary.buckets.every((b: { requests: number }) => b.requests === 0)).toBe(true);
    const eu = (await get('/api/v1/audit/entries', gw.keys.acme, { 'x-tenant-id': 'eu' })).json().entries;
    expect(eu.map((e: { tenant_id?: string }) => e.tenant_id ?? null)).toEqual(['eu', null, null]);
  });

  it('pages through the server with next_page_token', async () => {
    const first = (await get('/api/v1/audit/entries?limit=1')).json();
    expect(first.entries).toHaveLength(1);
    const second = (await get(`/api/v1/audit/entries?limit=2&page_token=${first.next_page_token}`)).json();
    expect(second.entries).toHaveLength(2);
    expect(second.entries.map((e: { id: string }) => e.id)).not.toContain(first.entries[0].id);
    expect(second.next_page_token).toBeUndefined();
  });

  it.each([
    { name: 'a page token not of this API', url: '/api/v1/audit/entries?page_token=bm9wZQ', field: 'page_token' },
    { name: 'a limit over 200', url: '/api/v1/audit/entries?limit=201', field: 'limit' },
    { name: 'a time that is not RFC 3339', url: '/api/v1/audit/entries?from=yesterday', field: 'from' },
    { name: 'a misspelt filter', url: '/api/v1/audit/entries?polcy=builtin-pii', field: 'polcy' },
    { name: 'an unknown window', url: '/api/v1/audit/summary?window=30d', field: 'window' },
  ])('answers 400 INVALID_REQUEST naming the field for $name', async ({ url, field }) => {
    const res = await get(url);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { fields: [expect.objectContaining({ field })] },
    });
  });

  it('answers 404 AUDIT_ENTRY_NOT_FOUND for an unknown id', async () => {
    const res = await get('/api/v1/audit/entries/aud_missing');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('AUDIT_ENTRY_NOT_FOUND');
  });
});
