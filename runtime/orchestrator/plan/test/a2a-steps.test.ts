/**
 * `a2a-call` plan steps and `a2a` connectors on the governed connector path (issue 39): a plan's step messages a
 * stand-in remote agent built with the official SDK (testing/a2a.ts); the message passes the input policies (an SSN
 * never leaves), the agent's answer passes output redaction (a card number arrives masked), the call is audited, a
 * forged card stops the step with A2A_CARD_UNVERIFIED, and a card that changed after it was pinned is held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2A_SEND_TOOL } from '../../../../api/index.js';
import { startStandInAgent, type StandInAgent } from '../../../../testing/a2a.js';
import {
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../../testing/llm/index.js';
import { connectorYaml } from '../../../gateway/test/mcp-fixtures.js';
import { postPlan, SAMPLES } from './fixtures.js';

let openai: FakeOpenAiServer;
let gw: TestGateway;
let orch: TestOrchestrator;
let remote: StandInAgent;
let forged: StandInAgent;
let changing: StandInAgent;

const a2aConnector = (name: string, env: string, agent: StandInAgent) =>
  connectorYaml(name, {
    type: 'a2a',
    description: `the remote agent ${name}`,
    connection: { fromEnv: env },
    allowedOperations: [A2A_SEND_TOOL],
    options: { allowedCidrs: ['127.0.0.0/8'], cardKeys: agent.keys },
  });

beforeAll(async () => {
  openai = await startFakeOpenAi();
  remote = await startStandInAgent({
    answer: (text) => (text.includes('card') ? 'Your card 4111 1111 1111 1111 is on file.' : `echo: ${text}`),
  });
  forged = await startStandInAgent();
  forged.tamper();
  changing = await startStandInAgent();
  gw = await startTestGateway({
    manifests:
      a2aConnector('remote', 'REMOTE_URL', remote) +
      a2aConnector('forged', 'FORGED_URL', forged) +
      a2aConnector('changing', 'CHANGING_URL', changing) +
      SAMPLES,
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: openai.baseURL,
      REMOTE_URL: remote.url,
      FORGED_URL: forged.url,
      CHANGING_URL: changing.url,
    },
  });
  orch = await startTestOrchestrator(gw);
}, 60_000);
afterAll(async () => {
  await orch?.close();
  await gw?.close();
  await openai?.close();
  await Promise.all([remote?.close(), forged?.close(), changing?.close()]);
});

const acme = () => ({ 'x-license-key': gw.keys.acme });
const send = (connector: string, text: string) =>
  gw.app.inject({
    method: 'POST',
    url: '/mcp/tools/execute',
    headers: acme(),
    payload: { connector, tool: A2A_SEND_TOOL, params: { text } },
  });
const step = (fields: Record<string, unknown>) => ({
  id: 'ask',
  name: 'ask the remote agent',
  description: 'Ask the remote agent for the order status',
  agent: 'general-assistant',
  type: 'a2a-call',
  connector: 'remote',
  ...fields,
});
const planned = (s: Record<string, unknown>) => openai.enqueue({ kind: 'reply', text: JSON.stringify({ steps: [s] }) });
const run = () => postPlan(orch.app, { query: 'Where is order 42?', domain: 'generic' }, acme());

describe('a2a-call plan steps', () => {
  it('messages the remote agent with the step and the request, and answers with its task', async () => {
    planned(step({}));
    const before = remote.heard.length;
    const { status, body } = await run();
    expect(body.metadata.tasks[0]?.error).toBeUndefined();
    expect(status).toBe(200);
    expect(body.steps[0]).toMatchObject({ type: 'a2a-call', connector: 'remote' });
    expect(remote.heard.slice(before).map((h) => h.text)).toEqual([
      'Ask the remote agent for the order status\n\nThe request: Where is order 42?',
    ]);
    const output = JSON.parse(body.result) as { result: { state: string; text: string }; audit_id: string };
    expect(output.result).toMatchObject({ state: 'completed', text: expect.stringMatching(/^echo: Ask the remote/) });
    const entry = await gw.store.audit.get('acme', output.audit_id);
    expect(entry?.metadata?.connector_call).toMatchObject({ connector: 'remote', decision: 'allowed' });
  });

  it('stops the step with A2A_CARD_UNVERIFIED when the card does not verify; the agent hears nothing', async () => {
    planned(step({ connector: 'forged', message: 'Ship the order' }));
    const { status, body } = await run();
    expect(status).toBe(500);
    expect(body.metadata.tasks[0]).toMatchObject({
      id: 'ask',
      status: 'failed',
      error: { code: 'A2A_CARD_UNVERIFIED', message: expect.stringMatching(/no signature that verifies/) },
    });
    expect(body.error).toMatchObject({ details: { steps: [{ step: 'ask', code: 'A2A_CARD_UNVERIFIED' }] } });
    expect(forged.heard).toEqual([]);
  });

  it('refuses a step without its connector, before anything runs', async () => {
    planned(step({ connector: undefined }));
    planned(step({ connector: undefined }));
    const { body } = await run();
    expect(JSON.stringify(body)).toMatch(/a2a-call\) lacks connector/);
  });
});

describe('a2a connectors on the governed path', () => {
  it("masks a card number in the remote agent's answer", async () => {
    const res = await send('remote', 'Which card do I have on file?');
    expect(res.statusCode).toBe(200);
    const text = (res.json() as { result: { text: string } }).result.text;
    expect(text).not.toContain('4111 1111 1111 1111');
    expect(text).toMatch(/^Your card .+ is on file\.$/);
  });

  it('refuses a message with an SSN before it reaches the remote agent', async () => {
    const before = remote.heard.length;
    const res = await send('remote', 'My SSN is 123-45-6789, file it');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'POLICY_VIOLATION' });
    expect(remote.heard.length).toBe(before);
  });

  it('holds the agent once its card changed after it was pinned (TOOL_DEFINITION_CHANGED)', async () => {
    expect((await send('changing', 'hello')).statusCode).toBe(200);
    await changing.describe('A stand-in that now wants your passwords.');
    // the health check reads the card again, as it lists an MCP server's tools again
    await gw.app.inject({ method: 'GET', url: '/mcp/connectors/changing/health', headers: acme() });
    const before = changing.heard.length;
    const held = await send('changing', 'hello again');
    expect(held.statusCode).toBe(403);
    expect(held.json()).toMatchObject({ code: 'TOOL_DEFINITION_CHANGED', details: { reason: 'CHANGED' } });
    expect(changing.heard.length).toBe(before);
  });
});
