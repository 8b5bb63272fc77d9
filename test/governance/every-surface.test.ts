import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { TaskState, type TaskStatus } from '@a2a-js/sdk';
import { a2aClient, startStandInAgent, userMessage, type StandInAgent } from '../../testing/a2a.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { startTestStandalone, type TestStandalone } from '../../testing/standalone.js';

/**
 * One table over every surface that reaches a model or a data system, in one standalone process with the built-in
 * pack and an OpenAI-compatible stand-in (issue 31, item 6). The same three cases on each:
 * - an SSN in the input is blocked by `builtin-pii`, and the upstream is never called;
 * - a card number in the answer arrives masked (split across chunks on streams);
 * - a benign call passes.
 * Each case writes an audit row of one shape. `SURFACES` must list every `GovernedVia` and every connector route:
 * the last test fails when a surface writes audit rows that no row of the table checked.
 */

const SSN_INPUT = 'My SSN is 123-45-6789, please summarize my account';
/** Asks the stand-in for the card answer; a prompt without it gets the benign one. */
const CARD_ASK = 'CARD-PLEASE: what is on file?';
const BENIGN_ASK = 'What is the weather like in Lisbon?';
const CARD = '4111 1111 1111 1111';
const MASK = '[REDACTED:payment_card]';
/** The card answer, split inside the number: a stream sends it in these pieces. */
const CARD_PIECES = ['Card number: 4111 11', '11 1111 ', '1111 ok'];
const BENIGN_ANSWER = 'Sunny and mild.';
/** A call the audited policy matches: it must go through, recorded as `audit` (issue 34). */
const AUDITED_ASK = 'AUDIT-MARKER: what is the weather like in Porto?';
const AUDITED_POLICY = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: audited-marker}
spec:
  type: custom
  enforcementAction: audit
  rego: |
    package custom.audited_marker
    deny contains "the audit marker" if {
      some t in input.normalized.texts
      contains(t, "AUDIT-MARKER")
    }
---
`;
/** A call the warned policy matches: it must go through, and the caller sees the warning (issue 34). */
const WARNED_ASK = 'WARN-MARKER: what is the weather like in Faro?';
const WARNED_POLICY = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: warned-marker}
spec:
  type: custom
  enforcementAction: warn
  rego: |
    package custom.warned_marker
    deny contains "the warn marker" if {
      some t in input.normalized.texts
      contains(t, "WARN-MARKER")
    }
---
`;
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let sa: TestStandalone;
let fake: FakeOpenAiServer;
let openai: OpenAI;
let anthropic: Anthropic;
let gateway: string;
let orchestrator: string;
let apiKey: string;
/** A remote A2A agent behind an `a2a` connector: it answers as the model stand-in does. */
let remote: StandInAgent;

beforeAll(async () => {
  remote = await startStandInAgent({
    answer: (text) => (text.includes('CARD-PLEASE') ? CARD_PIECES.join('') : BENIGN_ANSWER),
  });
  fake = await startFakeOpenAi({
    apiKey: 'sk-upstream',
    otherwise: (req) =>
      req.rawBody.includes('CARD-PLEASE')
        ? { kind: 'reply', chunks: CARD_PIECES }
        : { kind: 'reply', text: BENIGN_ANSWER },
  });
  sa = await startTestStandalone({
    samples: true,
    manifests: {
      'audited.yaml': AUDITED_POLICY,
      'warned.yaml': WARNED_POLICY,
      'connector.yaml':
        'apiVersion: steward.dev/v1alpha1\nkind: Connector\nmetadata: {name: pg}\nspec:\n  type: postgres\n  connection: {fromEnv: PG_URL}\n  allowedOperations: [query]\n',
      'remote-agent.yaml': `apiVersion: steward.dev/v1alpha1
kind: Connector
metadata: {name: remote-agent}
spec:
  type: a2a
  connection: {fromEnv: REMOTE_AGENT_URL}
  allowedOperations: [send_message]
  options: {allowedCidrs: [127.0.0.0/8], cardKeys: ${JSON.stringify(remote.keys)}}
`,
    },
    env: {
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: fake.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      STEWARD_LLM_TIMEOUT_MS: '10000',
    },
    processEnv: { PG_URL, REMOTE_AGENT_URL: remote.url },
  });
  ({ gateway, orchestrator } = sa);
  // NB: the SDKs always send a key: a client key of the community organization.
  const created = await post(gateway, '/api/clients', { name: 'every-surface' });
  apiKey = String(created.json.api_key);
  openai = new OpenAI({ apiKey, baseURL: `${gateway}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey, baseURL: gateway, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await sa?.close();
  await fake?.close();
  await remote?.close();
});

/** What a surface answered, read the same way for every surface. */
interface Seen {
  /** the text the caller got (the answer, or every step's or query's output) */
  text: string;
  /** whether the caller was told the input was blocked, and by which policy */
  blockedBy?: string;
  /** the `Warning` header's texts */
  warnings?: string[];
}

const post = async (
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; warnings: string[] }> => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, warnings: warningsOf(res.headers) };
};

/** The texts of a `Warning` header (`299 - "<text>", …`). */
function warningsOf(headers: Headers): string[] {
  return [...(headers.get('warning') ?? '').matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
}

/** The policy a block reason (`builtin-pii: …`) names. */
const policyOf = (reason: unknown) => (typeof reason === 'string' ? reason.split(':')[0] : undefined);

/** The SDKs' errors carry the body's code and message. */
async function sdkCall(call: () => Promise<{ text: string; response: Response }>): Promise<Seen> {
  try {
    const { text, response } = await call();
    return { text, warnings: warningsOf(response.headers) };
  } catch (err) {
    const e = err as { status?: number; message?: string };
    expect(e.status).toBe(403);
    return { text: '', blockedBy: /builtin-[a-z-]+/.exec(e.message ?? '')?.[0] };
  }
}

interface Surface {
  name: string;
  /** the `metadata.via` of the audit rows a call writes (the last one written is checked) */
  via: string;
  /** the `metadata.via` of the row a blocked input writes, where it is not `via` (a plan blocked before its steps) */
  blockedVia?: string;
  send(prompt: string): Promise<Seen>;
}

const SURFACES: Surface[] = [
  {
    name: 'POST /v1/execute',
    via: 'execute',
    send: async (prompt) => {
      const r = await post(gateway, '/v1/execute', { prompt });
      if (r.status === 403) return { text: '', blockedBy: policyOf(r.json.block_reason) };
      expect(r.status).toBe(200);
      const data = r.json.data as { response: string; warnings?: string[] };
      expect(data.warnings ?? []).toEqual(r.warnings);
      return { text: String(data.response), warnings: r.warnings };
    },
  },
  {
    name: 'POST /api/request (llm_chat)',
    via: 'request',
    send: async (prompt) => {
      const r = await post(gateway, '/api/request', {
        query: prompt,
        request_type: 'llm_chat',
        user_token: 'u',
        client_id: 'app',
      });
      expect(r.status).toBe(200);
      return r.json.blocked
        ? { text: '', blockedBy: policyOf(r.json.block_reason) }
        : { text: String(r.json.result), warnings: r.warnings };
    },
  },
  {
    name: 'POST /v1/chat/completions',
    via: 'chat_completions',
    send: (prompt) =>
      sdkCall(async () => {
        const { data, response } = await openai.chat.completions
          .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] })
          .withResponse();
        return { text: data.choices[0]!.message.content ?? '', response };
      }),
  },
  {
    name: 'POST /v1/chat/completions, streamed',
    via: 'chat_completions',
    send: (prompt) =>
      sdkCall(async () => {
        const { data: stream, response } = await openai.chat.completions
          .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], stream: true })
          .withResponse();
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        return { text, response };
      }),
  },
  {
    name: 'POST /v1/messages',
    via: 'messages',
    send: (prompt) =>
      sdkCall(async () => {
        const { data: m, response } = await anthropic.messages
          .create({ model: 'gpt-4o-mini', max_tokens: 200, messages: [{ role: 'user', content: prompt }] })
          .withResponse();
        return { text: m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), response };
      }),
  },
  {
    name: 'POST /v1/messages, streamed',
    via: 'messages',
    send: (prompt) =>
      sdkCall(async () => {
        const stream = anthropic.messages.stream({
          model: 'gpt-4o-mini',
          max_tokens: 200,
          messages: [{ role: 'user', content: prompt }],
        });
        const { response } = await stream.withResponse();
        let text = '';
        for await (const ev of stream)
          if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
        return { text, response };
      }),
  },
  {
    name: 'POST /api/v1/plan (the planner and each LLM step)',
    via: 'plan_step',
    blockedVia: 'planner',
    send: async (prompt) => {
      const r = await post(orchestrator, '/api/v1/plan', { query: prompt, domain: 'generic' });
      if (r.status === 403) {
        const error = r.json.error as { details?: { block_reason?: string; policy?: string } };
        return { text: '', blockedBy: policyOf(error.details?.block_reason) ?? error.details?.policy };
      }
      expect(r.status).toBe(200);
      const metadata = r.json.metadata as { warnings?: string[] };
      expect(metadata.warnings ?? []).toEqual(r.warnings);
      return { text: JSON.stringify(r.json.steps) + String(r.json.result ?? ''), warnings: r.warnings };
    },
  },
  {
    name: 'POST /api/request (multi-agent-plan)',
    via: 'plan_step',
    blockedVia: 'request_plan',
    send: async (prompt) => {
      const r = await post(gateway, '/api/request', {
        query: prompt,
        request_type: 'multi-agent-plan',
        user_token: 'u',
        client_id: 'app',
      });
      if (r.json.blocked) return { text: '', blockedBy: policyOf(r.json.block_reason) };
      expect(r.status).toBe(200);
      expect(r.json.warnings ?? []).toEqual(r.warnings);
      return { text: JSON.stringify(r.json.steps) + String(r.json.result ?? ''), warnings: r.warnings };
    },
  },
  {
    name: 'POST /orchestrator/parallel',
    via: 'parallel',
    send: async (prompt) => {
      const r = await post(orchestrator, '/orchestrator/parallel', {
        queries: [{ query: prompt, policy: 'package q\n\nallow := true\n', llm: { provider: 'openai' } }],
      });
      expect(r.status).toBe(200);
      const result = (
        r.json.results as {
          status: string;
          result?: unknown;
          error?: { code: string; message: string };
          metadata: { warnings?: string[] };
        }[]
      )[0]!;
      if (result.status === 'error') {
        expect(result.error?.code).toBe('POLICY_VIOLATION');
        return { text: '', blockedBy: /builtin-[a-z-]+/.exec(result.error?.message ?? '')?.[0] };
      }
      expect(result.metadata.warnings ?? []).toEqual(r.warnings);
      return {
        text: typeof result.result === 'string' ? result.result : JSON.stringify(result.result),
        warnings: r.warnings,
      };
    },
  },
  {
    name: 'POST /mcp/resources/query',
    via: 'mcp',
    send: async (prompt) => {
      // NB: the connector's "upstream" is the database: the SSN goes in as a parameter, the card comes out of a row.
      const statement =
        prompt === CARD_ASK ? "SELECT translate('abbb cccc cccc cccc', 'abc', '411') AS v" : 'SELECT $1::text AS v';
      const r = await post(gateway, '/mcp/resources/query', {
        connector: 'pg',
        query: statement,
        ...(prompt === CARD_ASK ? {} : { params: [prompt] }),
      });
      if (r.status === 403) return { text: '', blockedBy: /builtin-[a-z-]+/.exec(String(r.json.error))?.[0] };
      expect(r.status).toBe(200);
      expect((r.json.metadata as { warnings?: string[] }).warnings ?? []).toEqual(r.warnings);
      return { text: JSON.stringify(r.json.data), warnings: r.warnings };
    },
  },
  {
    name: 'POST /mcp/tools/execute to an a2a connector (a remote A2A agent)',
    via: 'mcp',
    send: async (prompt) => {
      const heard = remote.heard.length;
      const r = await post(gateway, '/mcp/tools/execute', {
        connector: 'remote-agent',
        tool: 'send_message',
        params: { text: prompt },
      });
      if (r.status === 403) {
        // the remote agent is this surface's upstream: a refused message never reached it
        expect(remote.heard.length).toBe(heard);
        return { text: '', blockedBy: /builtin-[a-z-]+/.exec(String(r.json.error))?.[0] };
      }
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return { text: JSON.stringify(r.json.result), warnings: r.warnings };
    },
  },
  {
    name: 'A2A SendStreamingMessage to an agent',
    via: 'a2a',
    send: (prompt) => a2aSend(`${gateway}/a2a/agents/general-assistant/`, prompt),
  },
  {
    name: 'A2A SendStreamingMessage to the orchestrator (a plan)',
    via: 'plan_step',
    blockedVia: 'a2a',
    send: (prompt) => a2aSend(`${gateway}/`, prompt),
  },
];

/** One message through the official A2A client, streamed: the artifacts' text and data, or the policy that refused it. */
async function a2aSend(url: string, prompt: string): Promise<Seen> {
  const client = await a2aClient(url, apiKey);
  let text = '';
  let status: TaskStatus | undefined;
  let metadata: Record<string, unknown> | undefined;
  for await (const ev of client.sendMessageStream({
    tenant: '',
    message: userMessage(prompt),
    configuration: undefined,
    metadata: undefined,
  })) {
    const p = ev.payload;
    if (p?.$case === 'artifactUpdate')
      for (const part of p.value.artifact?.parts ?? []) {
        if (part.content?.$case === 'text') text += part.content.value;
        if (part.content?.$case === 'data') text += JSON.stringify(part.content.value);
      }
    if (p?.$case === 'statusUpdate') ({ status, metadata } = p.value);
  }
  const said = (status?.message?.parts ?? []).map((x) => (x.content?.$case === 'text' ? x.content.value : '')).join('');
  if (status?.state === TaskState.TASK_STATE_REJECTED)
    return { text: '', blockedBy: /builtin-[a-z-]+/.exec(said)?.[0] };
  expect(status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  // NB: the task's last status update carries the call's warnings (and audit id) in its metadata.
  const warnings = metadata?.warnings;
  return { text, warnings: Array.isArray(warnings) ? warnings.map(String) : [] };
}

/** An A2A client (the official SDK) of the card under `url`, with the test's API key. */
/** The audit shape every governed call writes, whatever the surface. */
const AUDIT_SHAPE = {
  governed: true,
  via: expect.any(String),
  surface: expect.any(String),
  decision: expect.stringMatching(
    /^(allowed|redacted|blocked_input|blocked_output|refused|provider_error|client_closed|warn|audit|exempted)$/,
  ),
  steward_ms: expect.any(Number),
  upstream_ms: expect.any(Number),
  stored_text: 'masked',
};

/** The newest audit row of a surface written since `since`. */
async function lastAudit(via: string, since: Date) {
  const { rows } = await sa.app.store.db.query<{
    prompt: string | null;
    response: string | null;
    metadata: Record<string, unknown>;
  }>(
    `SELECT prompt, response, metadata FROM audit_entries WHERE metadata->>'via' = $1 AND created_at >= $2 ORDER BY created_at DESC LIMIT 1`,
    [via, since],
  );
  return rows[0];
}

const checked = new Set<string>();

describe.each(SURFACES)('$name', (surface) => {
  it('blocks an SSN in the input with builtin-pii, and the upstream is never called', async () => {
    const before = fake.requests.length;
    const since = new Date(Date.now() - 1000);
    const seen = await surface.send(SSN_INPUT);
    expect(seen.blockedBy).toBe('builtin-pii');
    expect(fake.requests.length).toBe(before);
    const via = surface.blockedVia ?? surface.via;
    const row = await lastAudit(via, since);
    expect(row?.metadata).toMatchObject({
      ...AUDIT_SHAPE,
      decision: 'blocked_input',
      policies: expect.arrayContaining(['builtin-pii']),
    });
    expect(JSON.stringify(row)).not.toContain('123-45-6789');
    checked.add(via);
    checked.add(surface.via);
  });

  it('masks a card number in the answer', async () => {
    const since = new Date(Date.now() - 1000);
    const seen = await surface.send(CARD_ASK);
    expect(seen.blockedBy).toBeUndefined();
    expect(seen.text).toContain(MASK);
    expect(seen.text).not.toContain(CARD);
    const row = await lastAudit(surface.via, since);
    expect(row?.metadata).toMatchObject({ ...AUDIT_SHAPE, decision: 'redacted', redactions: { payment_card: 1 } });
    expect(JSON.stringify(row)).not.toContain(CARD);
  });

  it('lets a call an audited policy matches through, and records it as audit', async () => {
    const since = new Date(Date.now() - 1000);
    const seen = await surface.send(AUDITED_ASK);
    expect(seen.blockedBy).toBeUndefined();
    const row = await lastAudit(surface.via, since);
    expect(row?.metadata).toMatchObject({
      ...AUDIT_SHAPE,
      decision: 'audit',
      policy_results: expect.arrayContaining([
        expect.objectContaining({ policy: 'audited-marker', mode: 'audit', would: 'block', decision: 'audit' }),
      ]),
    });
  });

  it('lets a call a warn-mode policy matches through, tells the caller, and records it as warn', async () => {
    const since = new Date(Date.now() - 1000);
    const seen = await surface.send(WARNED_ASK);
    expect(seen.blockedBy).toBeUndefined();
    expect(seen.warnings).toEqual([expect.stringContaining('warned-marker')]);
    const row = await lastAudit(surface.via, since);
    expect(row?.metadata).toMatchObject({
      ...AUDIT_SHAPE,
      decision: 'warn',
      policy_results: expect.arrayContaining([
        expect.objectContaining({ policy: 'warned-marker', mode: 'warn', would: 'block', decision: 'warn' }),
      ]),
    });
  });

  it('passes a benign call', async () => {
    const since = new Date(Date.now() - 1000);
    const seen = await surface.send(BENIGN_ASK);
    expect(seen.blockedBy).toBeUndefined();
    expect(seen.text).not.toContain('[REDACTED');
    expect(seen.warnings ?? []).toEqual([]);
    const row = await lastAudit(surface.via, since);
    expect(row?.metadata).toMatchObject({ ...AUDIT_SHAPE, decision: 'allowed' });
  });
});

describe('the table', () => {
  it('covers every surface that writes governed audit rows', async () => {
    const { rows } = await sa.app.store.db.query<{ via: string }>(
      `SELECT DISTINCT metadata->>'via' AS via FROM audit_entries WHERE metadata->>'governed' = 'true'`,
    );
    const written = new Set(rows.map((r) => r.via));
    expect([...written].filter((via) => !checked.has(via))).toEqual([]);
    expect(written.size).toBeGreaterThanOrEqual(8);
  });
});
