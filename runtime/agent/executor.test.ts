import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { createLlmRouter, ECHO_NOTICE, type LlmRouter } from '../llm/index.js';
import { LocalAgent, type LocalAgentOptions } from './executor.js';
import { AgentBusyError, AgentClosedError, type WorkItem } from './work.js';

const ALLOW = 'package q\n\nallow if not contains(input.query, "SSN")\n';
const DENY_SSN = 'package q\n\ndeny contains "the query names an SSN" if contains(input.query, "SSN")\n';

/** A work item with defaults a test overrides. */
function item(overrides: Partial<WorkItem> = {}): WorkItem {
  return {
    requestId: 'req-1',
    queryIndex: 0,
    query: 'book a flight to Oslo',
    policy: ALLOW,
    timeoutMs: 10_000,
    ...overrides,
  };
}

let openai: FakeOpenAiServer;
let router: LlmRouter;
const agents: LocalAgent[] = [];

function agent(options: Partial<LocalAgentOptions> = {}): LocalAgent {
  const a = new LocalAgent({
    id: 'travel-0',
    llm: router,
    spec: { llm: { provider: 'openai', model: 'gpt-test' }, description: 'books travel' },
    ...options,
  });
  agents.push(a);
  return a;
}

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-agent' });
  router = createLlmRouter([{ type: 'openai', model: 'gpt-default', apiKey: 'sk-agent', endpoint: openai.baseURL }]);
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});
afterAll(async () => {
  await router.close();
  await openai.close();
});

describe('LocalAgent', () => {
  it('answers an allowed query with the LLM text, calling the AgentConfig model with the reference defaults', async () => {
    const before = openai.requests.length;
    const r = await agent().execute(item({ context: { seat: 'aisle' } }));
    expect(r).toMatchObject({ status: 'success', policyDecision: 'allow', agentId: 'travel-0' });
    expect(r.result).toMatch(/^Fake OpenAI reply to: book a flight to Oslo/);
    expect(openai.requests.length).toBe(before + 1);
    const sent = openai.lastRequest().body as {
      model: string;
      temperature: number;
      max_tokens?: number;
      max_completion_tokens?: number;
      messages: { role: string; content: string }[];
    };
    expect(sent.model).toBe('gpt-test');
    expect(sent.temperature).toBe(0.7);
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBe(500);
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'books travel' });
    expect(sent.messages.at(-1)!.content).toContain('"seat":"aisle"');
  });

  it("uses the item's model and sampling settings over the AgentConfig's", async () => {
    await agent().execute(item({ llm: { model: 'gpt-item', temperature: 0.1, max_tokens: 42 } }));
    const sent = openai.lastRequest().body as {
      model: string;
      temperature: number;
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(sent).toMatchObject({ model: 'gpt-item', temperature: 0.1 });
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBe(42);
  });

  it('answers a denied query as a successful evaluation with decision deny and runs no LLM step', async () => {
    const before = openai.requests.length;
    const r = await agent().execute(item({ query: 'my SSN is 123-45-6789', policy: DENY_SSN }));
    expect(r).toMatchObject({
      status: 'success',
      policyDecision: 'deny',
      result: { deny: ['the query names an SSN'], warn: [] },
    });
    expect(r.error).toBeUndefined();
    expect(openai.requests.length).toBe(before);
  });

  it('fails closed when allow is defined and false: deny, no LLM step', async () => {
    const before = openai.requests.length;
    const r = await agent().execute(item({ query: 'SSN please' }));
    expect(r).toMatchObject({ status: 'success', policyDecision: 'deny' });
    expect(openai.requests.length).toBe(before);
  });

  it('answers the decision messages when neither the item nor the AgentConfig asks for an LLM step', async () => {
    const policy = 'package q\n\nwarn contains "long trip" if true\n';
    const r = await agent({ spec: { description: '' } }).execute(item({ policy }));
    expect(r).toMatchObject({ status: 'success', policyDecision: 'allow', result: { deny: [], warn: ['long trip'] } });
  });

  it('reports POLICY_COMPILE_ERROR with query.rego:line:column', async () => {
    const r = await agent().execute(item({ policy: 'package q\n\nallow if {\n  input.query ==\n}\n' }));
    expect(r).toMatchObject({ status: 'error', policyDecision: 'deny', error: { code: 'POLICY_COMPILE_ERROR' } });
    expect(r.error!.message).toMatch(/^query\.rego:5:1: rego_parse_error: /);
  });

  const SLOW =
    'package q\n\nallow if count([1 | some i in numbers.range(1, 3000); some j in numbers.range(1, 3000)]) > 0\n';

  it('reports POLICY_EVALUATION_ERROR (decision deny) when the evaluation passes its own deadline', async () => {
    const r = await agent({ policyDeadlineMs: 5, policyMaxSteps: 1e12 }).execute(item({ policy: SLOW }));
    expect(r).toMatchObject({ status: 'error', policyDecision: 'deny', error: { code: 'POLICY_EVALUATION_ERROR' } });
    expect(r.error!.message).toContain('eval_cancel_error');
  });

  it("reports QUERY_TIMEOUT when the item's own time runs out inside the evaluation", async () => {
    const r = await agent({ policyMaxSteps: 1e12 }).execute(item({ policy: SLOW, timeoutMs: 20 }));
    expect(r).toMatchObject({ status: 'error', policyDecision: 'deny', error: { code: 'QUERY_TIMEOUT' } });
  });

  it('compiles each distinct policy text once', async () => {
    const a = agent();
    await a.execute(item({ policy: DENY_SSN }));
    await a.execute(item({ policy: DENY_SSN, queryIndex: 1 }));
    await a.execute(item({ policy: 'package q\n\nallow := true\n', queryIndex: 2 }));
    expect(a.policyCompilations).toBe(2);
  });

  it('reports CONNECTOR_NOT_AVAILABLE for an allowed MCP step and skips it when denied', async () => {
    const mcp = { connector: 'flights-db', operation: 'query' };
    const allowed = await agent().execute(item({ mcp }));
    expect(allowed).toMatchObject({
      status: 'error',
      policyDecision: 'allow',
      error: { code: 'CONNECTOR_NOT_AVAILABLE' },
    });
    const denied = await agent().execute(item({ mcp, query: 'SSN', policy: DENY_SSN }));
    expect(denied).toMatchObject({ status: 'success', policyDecision: 'deny' });
  });

  it('passes mcp and llm into the policy input under surface parallel', async () => {
    const policy =
      'package q\n\ndeny contains "no deletes" if input.mcp.operation == "delete"\ndeny contains "wrong surface" if input.surface != "parallel"\n';
    const r = await agent().execute(item({ policy, mcp: { connector: 'db', operation: 'delete' } }));
    expect(r).toMatchObject({ policyDecision: 'deny', result: { deny: ['no deletes'] } });
  });

  it('reports PROVIDER_NOT_CONFIGURED for a provider the agent lacks', async () => {
    const r = await agent().execute(item({ llm: { provider: 'anthropic' } }));
    expect(r).toMatchObject({ status: 'error', policyDecision: 'allow', error: { code: 'PROVIDER_NOT_CONFIGURED' } });
  });

  it("runs on the default provider when its AgentConfig's is not configured, and reports the fallback", async () => {
    const a = agent({ spec: { llm: { provider: 'anthropic', model: 'claude-test' }, description: 'books travel' } });
    expect(a.route).toEqual({ provider: 'openai', fallback: true, requested: 'anthropic' });
    expect(a.stats().llm).toEqual({ provider: 'openai', fallback: true, requested: 'anthropic' });
    const r = await a.execute(item());
    expect(r).toMatchObject({
      status: 'success',
      llm: { provider: 'openai', model: expect.stringMatching(/^gpt-default/), fallback: true, requested: 'anthropic' },
    });
    // NB: the AgentConfig's model belongs to its own provider: the default answers with its default model.
    expect((openai.lastRequest().body as { model: string }).model).toBe('gpt-default');
  });

  it('fails with PROVIDER_NOT_CONFIGURED, calling nothing, when its AgentConfig forbids the fallback', async () => {
    const before = openai.requests.length;
    const a = agent({
      spec: { llm: { provider: 'anthropic', model: 'claude-test', fallback: false }, description: 'books travel' },
    });
    expect(a.stats().llm).toBeUndefined();
    const r = await a.execute(item());
    expect(r).toMatchObject({ status: 'error', policyDecision: 'allow', error: { code: 'PROVIDER_NOT_CONFIGURED' } });
    expect(r.error!.message).toContain('ANTHROPIC_API_KEY');
    expect(openai.requests.length).toBe(before);
  });

  it('reports its own provider without a fallback when it is configured', async () => {
    const r = await agent().execute(item());
    expect(r.llm).toEqual({ provider: 'openai', model: 'gpt-test', fallback: false });
  });

  it('reports PROVIDER_ERROR when the provider fails', async () => {
    openai.enqueue({ kind: 'error', status: 400, message: 'bad model' });
    const r = await agent().execute(item());
    expect(r).toMatchObject({ status: 'error', policyDecision: 'allow', error: { code: 'PROVIDER_ERROR' } });
    expect(r.error!.message).toContain('bad model');
  });

  it('aborts a hung LLM call when the item times out, with QUERY_TIMEOUT', async () => {
    openai.enqueue({ kind: 'hang' });
    const a = agent();
    const r = await a.execute(item({ timeoutMs: 300 }));
    expect(r).toMatchObject({ status: 'error', policyDecision: 'allow', error: { code: 'QUERY_TIMEOUT' } });
    expect(r.latencyMs).toBeGreaterThanOrEqual(290);
    expect(a.stats().inFlight).toBe(0);
  });

  it('refuses work beyond maxInFlight with AgentBusyError instead of queueing', async () => {
    openai.enqueue({ kind: 'hang' });
    const a = agent({ maxInFlight: 1 });
    const first = a.execute(item({ timeoutMs: 300 }));
    await expect(a.execute(item({ queryIndex: 1 }))).rejects.toBeInstanceOf(AgentBusyError);
    await expect(a.execute(item({ queryIndex: 1 }))).rejects.toMatchObject({ code: 'AGENT_BUSY' });
    expect(a.stats()).toMatchObject({ inFlight: 1, maxInFlight: 1 });
    expect((await first).error?.code).toBe('QUERY_TIMEOUT');
    // The slot is free as soon as the first result is in.
    expect((await a.execute(item({ queryIndex: 2 }))).status).toBe('success');
  });

  it('runs up to maxInFlight items at once', async () => {
    openai.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const a = agent({ maxInFlight: 2 });
    const both = [a.execute(item({ timeoutMs: 300 })), a.execute(item({ timeoutMs: 300, queryIndex: 1 }))];
    await expect(a.execute(item({ queryIndex: 2 }))).rejects.toBeInstanceOf(AgentBusyError);
    expect((await Promise.all(both)).map((r) => r.error?.code)).toEqual(['QUERY_TIMEOUT', 'QUERY_TIMEOUT']);
  });

  it('stops the work when the caller aborts, rejecting with the abort reason', async () => {
    openai.enqueue({ kind: 'hang' });
    const a = agent();
    const controller = new AbortController();
    const running = a.execute(item(), controller.signal);
    setTimeout(() => controller.abort(new Error('pool gave up')), 50);
    await expect(running).rejects.toThrow('pool gave up');
    expect(a.stats()).toMatchObject({ inFlight: 0, queriesProcessed: 0 });
  });

  it('counts processed queries and reports real process figures', async () => {
    const a = agent();
    await a.execute(item());
    await a.execute(item({ query: 'SSN', policy: DENY_SSN }));
    await a.execute(item({ policy: 'package q\nallow if {' }));
    const s = a.stats();
    expect(s).toMatchObject({ agentId: 'travel-0', queriesProcessed: 3, inFlight: 0, maxInFlight: 1 });
    expect(s.memoryMb).toBeGreaterThan(1);
    expect(s.cpuPercent).toBeGreaterThanOrEqual(0);
  });

  it('takes no new work once closed, and is ready until then', async () => {
    const a = agent();
    expect(a.notReadyReason()).toBeUndefined();
    await a.close();
    expect(a.notReadyReason()).toMatch(/shutting down/);
    await expect(a.execute(item())).rejects.toBeInstanceOf(AgentClosedError);
  });

  it('works with the echo stand-in through the real router', async () => {
    const echo = createLlmRouter([{ type: 'echo', model: 'echo' }]);
    try {
      const r = await agent({ llm: echo, spec: { description: '' } }).execute(item({ llm: {} }));
      expect(r.status).toBe('success');
      expect(r.result).toMatch(new RegExp(`^${ECHO_NOTICE.replace(/[[\]]/g, '\\$&')}`));
    } finally {
      await echo.close();
    }
  });
});
