import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingState } from '../../runtime/tracing/index.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { startTestStandalone, type TestStandalone } from '../../testing/standalone.js';

/**
 * With no collector configured (the default), Steward makes no spans of its own but passes a caller's trace context
 * through unchanged to the provider, and its audit rows still carry the caller's trace id (docs/tracing.md).
 */
let sa: TestStandalone;
let fake: FakeOpenAiServer;

beforeAll(async () => {
  fake = await startFakeOpenAi({ apiKey: 'sk-upstream', otherwise: () => ({ kind: 'reply', text: 'Sunny.' }) });
  sa = await startTestStandalone({
    env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: fake.baseURL, STEWARD_OPENAI_MODEL: 'gpt-4o-mini' },
  });
}, 60_000);
afterAll(async () => {
  await sa?.close();
  await fake?.close();
});

async function execute(headers: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(`${sa.gateway}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ prompt: 'What is the weather like in Lisbon?' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { metadata?: { audit_id?: string }; audit_id?: string };
  const auditId = body.metadata?.audit_id ?? body.audit_id;
  const { rows } = await sa.app.store.db.query<{ metadata: Record<string, unknown> }>(
    auditId
      ? 'SELECT metadata FROM audit_entries WHERE id = $1'
      : 'SELECT metadata FROM audit_entries ORDER BY created_at DESC LIMIT 1',
    auditId ? [auditId] : [],
  );
  return rows[0]!.metadata;
}

describe('tracing off', () => {
  it('exports nothing and makes no spans', () => {
    expect(tracingState.traces).toBe(false);
    expect(tracingState.metrics).toBe(false);
  });

  it('passes a caller’s traceparent through to the provider unchanged and records its trace id', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const metadata = await execute({ traceparent, tracestate: 'vendor=1' });
    const upstream = fake.requests.at(-1)!;
    expect(upstream.headers.traceparent).toBe(traceparent);
    expect(upstream.headers.tracestate).toBe('vendor=1');
    expect(metadata.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('adds no trace context of its own to a call that came without one', async () => {
    const metadata = await execute({});
    expect(fake.requests.at(-1)!.headers.traceparent).toBeUndefined();
    expect(metadata.trace_id).toBeUndefined();
  });
});
