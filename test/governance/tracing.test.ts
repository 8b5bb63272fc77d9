import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS_S, TOKEN_BUCKETS } from '../../runtime/tracing/index.js';
import { waitUntil } from '../../testing/eventually.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../testing/otlp.js';
import { startTestStandalone, type TestStandalone } from '../../testing/standalone.js';
import { freePort } from '../../testing/ports.js';

/**
 * OpenTelemetry end to end (issue 36, item 4) in one standalone process exporting to an OTLP/HTTP receiver in this
 * test: GenAI spans, the security conventions' guardrail spans and findings, a plan as one trace, trace context
 * passed to the provider, the trace id in every audit row, and the GenAI histograms — with message content captured,
 * so that the masking is tested where it matters: no SSN in anything the collector receives.
 */
const SSN = '123-45-6789';
const CARD = '4111 1111 1111 1111';

let sa: TestStandalone;
let fake: FakeOpenAiServer;
let otlp: OtlpReceiver;
let gateway: string;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  fake = await startFakeOpenAi({
    apiKey: 'sk-upstream',
    otherwise: (req) =>
      req.rawBody.includes('CARD-PLEASE')
        ? { kind: 'reply', text: `The card on file is ${CARD}, SSN ${SSN}.` }
        : { kind: 'reply', text: 'Sunny and mild.' },
  });
  // An a2a connector to this process's own agent: Steward calling Steward, so that both sides of the hop are traced.
  const port = await freePort();
  const self = `http://127.0.0.1:${port}`;
  sa = await startTestStandalone({
    samples: true,
    manifests: {
      'self-agent.yaml': `apiVersion: steward.dev/v1alpha1
kind: Connector
metadata: {name: self}
spec:
  type: a2a
  connection: {fromEnv: SELF_AGENT_URL}
  allowedOperations: [send_message]
  options: {allowedCidrs: [127.0.0.0/8], cardKeysUrl: "${self}/.well-known/a2a-card-keys.json"}
`,
    },
    processEnv: { SELF_AGENT_URL: `${self}/a2a/agents/general-assistant/` },
    env: {
      STEWARD_GATEWAY_PORT: String(port),
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: fake.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    },
  });
  gateway = sa.gateway;
}, 60_000);
afterAll(async () => {
  await sa?.close();
  await otlp?.close();
  await fake?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gateway}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The spans of one trace, once the span named `last` (it ends the trace's work) has arrived. */
async function traceOf(traceId: string, last: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> {
  await waitUntil('the trace at the receiver', () => otlp.spans.some((s) => s.traceId === traceId && last(s)), {
    timeoutMs: 15_000,
    diagnose: () =>
      otlp.spans
        .filter((s) => s.traceId === traceId)
        .map((s) => s.name)
        .join(', '),
  });
  return otlp.spans.filter((s) => s.traceId === traceId);
}

const traceparent = (traceId: string, spanId = 'aaaaaaaaaaaaaaaa') => `00-${traceId}-${spanId}-01`;
const randomTrace = () =>
  [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('OpenTelemetry traces and metrics', () => {
  it('a blocked SSN pre-check: an apply_guardrail span for builtin-pii that denies, with its finding and no SSN', async () => {
    const traceId = randomTrace();
    const r = await post(
      '/api/policy/pre-check',
      { query: `My SSN is ${SSN}`, user_token: 'u', client_id: 'app' },
      { traceparent: traceparent(traceId) },
    );
    expect(r.json.approved).toBe(false);
    const spans = await traceOf(traceId, (s) => s.name === 'POST /api/policy/pre-check');
    const server = spans.find((s) => s.name === 'POST /api/policy/pre-check')!;
    expect(server.parentSpanId).toBe('aaaaaaaaaaaaaaaa');
    const pii = spans.find((s) => s.name === 'apply_guardrail builtin-pii')!;
    expect(pii.parentSpanId).toBe(server.spanId);
    expect(pii.attributes).toMatchObject({
      'gen_ai.operation.name': 'apply_guardrail',
      'gen_ai.security.decision.type': 'deny',
      'gen_ai.security.policy.id': 'builtin-pii',
      'gen_ai.security.target.type': 'llm_input',
    });
    expect(pii.events).toContainEqual({
      name: 'gen_ai.security.finding',
      attributes: expect.objectContaining({
        'gen_ai.security.policy.id': 'builtin-pii',
        'gen_ai.security.risk.category': 'sensitive_info_disclosure',
        'gen_ai.security.risk.metadata': ['pattern:us_ssn'],
      }),
    });
    // every other policy of the pack was evaluated and allowed
    const allowed = spans.filter((s) => s.attributes['gen_ai.security.decision.type'] === 'allow');
    expect(allowed.map((s) => s.attributes['gen_ai.security.policy.id'])).toContain('builtin-prompt-injection');
  });

  it('a governed call: chat under the server span, the guardrails under chat, the trace at the provider and in the audit row', async () => {
    const traceId = randomTrace();
    const r = await post(
      '/v1/execute',
      { prompt: 'CARD-PLEASE: what is on file?' },
      { traceparent: traceparent(traceId) },
    );
    expect(r.status).toBe(200);
    expect(String((r.json as { result?: unknown }).result ?? JSON.stringify(r.json))).not.toContain(CARD);
    const spans = await traceOf(traceId, (s) => s.name === 'POST /v1/execute');
    const server = spans.find((s) => s.name === 'POST /v1/execute')!;
    const chat = spans.find((s) => s.name === 'chat gpt-4o-mini')!;
    expect(chat.parentSpanId).toBe(server.spanId);
    expect(chat.kind).toBe(3); // CLIENT
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'steward.decision': 'redacted',
    });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    // content is captured (the setting is on), masked
    expect(String(chat.attributes['gen_ai.output.messages'])).toContain('[REDACTED:');
    const input = spans.filter((s) => s.name.startsWith('apply_guardrail') && s.parentSpanId === chat.spanId);
    expect(input.map((s) => s.attributes['gen_ai.security.target.type'])).toContain('llm_input');
    const redaction = spans.find((s) => s.name === 'apply_guardrail builtin-output-redaction')!;
    expect(redaction.parentSpanId).toBe(chat.spanId);
    expect(redaction.attributes).toMatchObject({
      'gen_ai.security.decision.type': 'modify',
      'gen_ai.security.target.type': 'llm_output',
      'gen_ai.security.content.redacted': true,
    });
    const kinds = redaction.events.map((e) => (e.attributes['gen_ai.security.risk.metadata'] as string[])[0]);
    expect(kinds).toEqual(expect.arrayContaining(['pattern:payment_card']));
    // the provider was called within the chat span
    const upstream = fake.requests.at(-1)!;
    expect(upstream.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-${chat.spanId}-01$`));
    // the audit row names the trace
    const row = await sa.app.store.db.query<{ metadata: Record<string, unknown> }>(
      'SELECT metadata FROM audit_entries WHERE id = $1',
      [chat.attributes['steward.audit_id']],
    );
    expect(row.rows[0]!.metadata.trace_id).toBe(traceId);
  });

  it('one plan is one trace: gateway, orchestrator, an invoke_agent span per step and the agent model calls', async () => {
    const traceId = randomTrace();
    const r = await post(
      '/api/request',
      { query: 'Plan a weekend in Lisbon', request_type: 'multi-agent-plan', user_token: 'u', client_id: 'app' },
      { traceparent: traceparent(traceId) },
    );
    expect(r.status).toBe(200);
    const spans = await traceOf(traceId, (s) => s.name === 'POST /api/request');
    const names = spans.map((s) => s.name);
    expect(names).toContain('POST /api/request');
    const orchestrator = spans.find((s) => s.kind === 2 && s.name !== 'POST /api/request')!;
    expect(orchestrator, names.join(', ')).toBeDefined();
    const steps = spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      expect(step.attributes['gen_ai.operation.name']).toBe('invoke_agent');
      // each step's agent called its model inside the step's span
      const calls = spans.filter((s) => s.parentSpanId === step.spanId && s.name.startsWith('chat'));
      expect(calls.length, `chat under ${step.name}`).toBeGreaterThan(0);
    }
    // every span of the plan chains up to the caller's span
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const s of spans) {
      let at: ReceivedSpan | undefined = s;
      for (let hops = 0; at?.parentSpanId && byId.has(at.parentSpanId) && hops < 50; hops++)
        at = byId.get(at.parentSpanId);
      expect(at?.parentSpanId, `${s.name} reaches the caller`).toBe('aaaaaaaaaaaaaaaa');
    }
  });

  it('an A2A message to an agent: invoke_agent under the server span, the trace at the provider', async () => {
    const traceId = randomTrace();
    const r = await post(
      '/a2a/agents/general-assistant/',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'CARD-PLEASE: what is on file?' }] },
        },
      },
      { traceparent: traceparent(traceId), 'a2a-version': '1.0' },
    );
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.json)).toContain('TASK_STATE_COMPLETED');
    expect(JSON.stringify(r.json)).not.toContain(CARD);
    const spans = await traceOf(traceId, (s) => s.name.startsWith('POST /a2a/agents'));
    const server = spans.find((s) => s.name.startsWith('POST /a2a/agents'))!;
    const agent = spans.find((s) => s.name === 'invoke_agent general-assistant')!;
    expect(agent, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(agent.parentSpanId).toBe(server.spanId);
    expect(agent.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'steward.via': 'a2a' });
    const upstream = fake.requests.at(-1)!;
    expect(upstream.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-${agent.spanId}-01$`));
  });

  it('an a2a connector call: execute_tool, then a client invoke_agent whose context the remote agent continues', async () => {
    await waitUntil('the connector verified its card', async () => {
      const res = await fetch(`${gateway}/mcp/connectors/self/health`);
      return ((await res.json()) as { status?: string }).status === 'healthy';
    });
    const traceId = randomTrace();
    const r = await post(
      '/mcp/tools/execute',
      { connector: 'self', tool: 'send_message', params: { text: 'What is the weather?' } },
      { traceparent: traceparent(traceId) },
    );
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.result).toMatchObject({ state: 'completed', text: 'Sunny and mild.' });
    const tool = (s: ReceivedSpan) => s.name === 'execute_tool send_message';
    const client = (s: ReceivedSpan) =>
      s.name === 'invoke_agent general-assistant' && s.attributes['steward.connector'] === 'self';
    const spans = await traceOf(traceId, (s) => tool(s) && otlp.spans.some((c) => c.traceId === traceId && client(c)));
    const call = spans.find(tool)!;
    const hop = spans.find(client)!;
    expect(hop.parentSpanId).toBe(call.spanId);
    expect(hop.kind).toBe(3); // CLIENT
    expect(hop.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'general-assistant',
      'server.address': '127.0.0.1',
      'steward.connector': 'self',
    });
    // The remote side (this process's A2A server) continued the trace under the client span.
    await waitUntil('the remote server span', () =>
      otlp.spans.some((s) => s.traceId === traceId && s.parentSpanId === hop.spanId),
    );
    const remote = otlp.spans.find((s) => s.traceId === traceId && s.parentSpanId === hop.spanId)!;
    expect(remote.name).toMatch(/^POST \/a2a\/agents\//);
  });

  it('records the GenAI histograms with the conventions’ bucket boundaries', async () => {
    await waitUntil(
      'the histograms at the receiver',
      () =>
        otlp.histograms.some((h) => h.name === 'gen_ai.client.operation.duration') &&
        otlp.histograms.some((h) => h.name === 'gen_ai.client.token.usage'),
      { timeoutMs: 15_000 },
    );
    const duration = otlp.histograms.find((h) => h.name === 'gen_ai.client.operation.duration')!;
    expect(duration.unit).toBe('s');
    expect(duration.points[0]!.explicitBounds).toEqual(DURATION_BUCKETS_S);
    expect(duration.points.some((p) => p.attributes['gen_ai.operation.name'] === 'chat')).toBe(true);
    const tokens = otlp.histograms.find((h) => h.name === 'gen_ai.client.token.usage')!;
    expect(tokens.points[0]!.explicitBounds).toEqual(TOKEN_BUCKETS);
    expect(tokens.points.map((p) => p.attributes['gen_ai.token.type']).sort()).toEqual(
      expect.arrayContaining(['input', 'output']),
    );
  });

  it('sends no SSN or card number to the collector, content capture on', async () => {
    // the blocked calls above carried an SSN in the prompt; the answer of the card call carried both
    const traceId = randomTrace();
    await post('/v1/execute', { prompt: `My SSN is ${SSN}` }, { traceparent: traceparent(traceId) });
    await traceOf(traceId, (s) => s.name === 'POST /v1/execute');
    const chat = otlp.spans.find((s) => s.traceId === traceId && s.name.startsWith('chat'))!;
    expect(chat.attributes['steward.decision']).toBe('blocked_input');
    expect(String(chat.attributes['gen_ai.input.messages'])).toContain('[REDACTED:');
    expect(otlp.bodies.length).toBeGreaterThan(0);
    for (const body of otlp.bodies) {
      expect(body).not.toContain(SSN);
      expect(body).not.toContain('123456789');
      expect(body).not.toContain(CARD);
    }
  });
});
