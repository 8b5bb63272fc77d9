import { describe, expect, it } from 'vitest';
import { pickDomain } from './agents.js';
import { deterministicSteps, domainAgents, NoAgentsError } from './deterministic.js';
import { checkPlan, topologicalOrder } from './validate.js';
import { extractJson } from './llm-planner.js';
import { PLAN_MAX_STEPS, type PlanAgent, type PlanStep } from './types.js';

const agent = (name: string, domain: string, type: PlanAgent['type'], capabilities: string[] = []): PlanAgent => ({
  name,
  ref: `default/${name}`,
  domain,
  type,
  description: `${name} agent`,
  capabilities,
  ...(type === 'specialist' ? { llm: { provider: 'openai', model: 'gpt-4o-mini' } } : {}),
  timeoutMs: 60_000,
});

const AGENTS = [
  agent('flight-search', 'travel', 'specialist', ['flight-search', 'fare-comparison']),
  agent('hotel-search', 'travel', 'specialist', ['hotel-search', 'accommodation']),
  agent('travel-coordinator', 'travel', 'coordinator', ['trip-planning']),
  agent('general-assistant', 'generic', 'specialist', ['question-answering']),
  agent('research-coordinator', 'generic', 'coordinator', ['synthesis']),
];
const REGISTRY = new Map(AGENTS.map((a) => [a.name, a]));

const step = (id: string, agentName: string, depends_on: string[] = []): PlanStep => ({
  id,
  name: id,
  type: 'llm-call',
  description: '',
  depends_on,
  agent: agentName,
});

describe('pickDomain', () => {
  it.each([
    {
      name: 'takes the body domain first',
      request: { query: 'stocks', domain: 'Travel', context: { domain: 'finance' } },
      domain: 'travel',
      inferred: false,
    },
    {
      name: 'then context.domain',
      request: { query: 'stocks', context: { domain: 'finance' } },
      domain: 'finance',
      inferred: false,
    },
    {
      name: 'then the words of the query',
      request: { query: 'Find flights and a hotel in Lisbon' },
      domain: 'travel',
      inferred: true,
    },
    {
      name: 'and generic when no domain word appears',
      request: { query: 'What is the capital of Peru?' },
      domain: 'generic',
      inferred: true,
    },
  ])('$name', ({ request, domain, inferred }) => {
    expect(pickDomain(request, AGENTS)).toEqual({ domain, inferred });
  });
});

describe('the deterministic planner', () => {
  it('runs the specialists the query asks for in parallel, then a synthesis by the coordinator that depends on all', () => {
    const steps = deterministicSteps('flights and a hotel to Rome', domainAgents('travel', true, AGENTS), AGENTS);
    expect(steps.map((s) => [s.agent, s.depends_on])).toEqual([
      ['flight-search', []],
      ['hotel-search', []],
      ['travel-coordinator', ['step-1', 'step-2']],
    ]);
    expect(checkPlan({ steps }, REGISTRY).ok).toBe(true);
  });

  it('takes every specialist of the domain when the query names no capability', () => {
    const steps = deterministicSteps('a week in Rome', domainAgents('travel', false, AGENTS), AGENTS);
    expect(steps.filter((s) => s.depends_on.length === 0).map((s) => s.agent)).toEqual([
      'flight-search',
      'hotel-search',
    ]);
  });

  it('emits llm-call steps only: connector-call and policy-check steps come from the LLM planner with their fields', () => {
    for (const q of ['flights and a hotel to Rome', 'query the orders table and check the refund policy']) {
      expect(deterministicSteps(q, domainAgents('travel', false, AGENTS), AGENTS).map((s) => s.type)).toEqual(
        expect.arrayContaining(['llm-call']),
      );
      expect(
        deterministicSteps(q, domainAgents('travel', false, AGENTS), AGENTS).every((s) => s.type === 'llm-call'),
      ).toBe(true);
    }
  });

  it('falls back to the generic agents for an inferred domain without agents, never for a named one', () => {
    expect(domainAgents('finance', true, AGENTS).domain).toBe('generic');
    expect(() => domainAgents('finance', false, AGENTS)).toThrow(NoAgentsError);
    expect(() => domainAgents('generic', true, [])).toThrow(NoAgentsError);
  });
});

describe('checkPlan', () => {
  it.each([
    {
      name: 'refuses an unknown agent',
      steps: [step('a', 'ghost-agent'), step('b', 'travel-coordinator', ['a'])],
      problem: /unknown agent ghost-agent/,
    },
    {
      name: 'refuses a cycle',
      steps: [
        step('a', 'flight-search', ['c']),
        step('b', 'hotel-search', ['a']),
        step('c', 'travel-coordinator', ['b']),
      ],
      problem: /cycle: a → c → b → a/,
    },
    {
      name: 'refuses a plan without one final synthesis step',
      steps: [step('a', 'flight-search'), step('b', 'hotel-search')],
      problem: /missing synthesis/,
    },
    {
      name: 'refuses a dependency on a step that does not exist',
      steps: [step('a', 'flight-search', ['z'])],
      problem: /unknown step z/,
    },
    {
      name: 'refuses more steps than the maximum',
      steps: Array.from({ length: PLAN_MAX_STEPS + 1 }, (_, i) =>
        step(
          `s${i}`,
          'flight-search',
          i === PLAN_MAX_STEPS ? Array.from({ length: PLAN_MAX_STEPS }, (_, j) => `s${j}`) : [],
        ),
      ),
      problem: new RegExp(`at most ${PLAN_MAX_STEPS}`),
    },
  ])('$name', ({ steps, problem }) => {
    const check = checkPlan({ steps }, REGISTRY);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.problems.join('; ')).toMatch(problem);
  });

  it('refuses an answer that is not a plan at all', () => {
    expect(checkPlan(extractJson('Sure! Here is your itinerary: day 1 …'), REGISTRY).ok).toBe(false);
  });

  it.each([
    {
      name: 'a connector-call step without its connector',
      fields: { type: 'connector-call', tool: 'add' },
      missing: ['connector'],
    },
    {
      name: 'a connector-call step without a tool or query',
      fields: { type: 'connector-call', connector: 'pg' },
      missing: ['tool|query.statement'],
    },
    {
      name: 'a connector-call step with both a tool and a query',
      fields: { type: 'connector-call', connector: 'pg', tool: 'add', query: { statement: 'SELECT 1' } },
      missing: ['tool|query.statement'],
    },
    {
      name: 'a policy-check step without its policy',
      fields: { type: 'policy-check', input: {} },
      missing: ['policy'],
    },
    {
      name: 'a policy-check step without its input',
      fields: { type: 'policy-check', policy: 'p' },
      missing: ['input'],
    },
  ])('refuses $name with INVALID_REQUEST naming the step and the fields', ({ fields, missing }) => {
    const check = checkPlan({ steps: [{ id: 'a', name: 'x', agent: 'flight-search', ...fields }] }, REGISTRY);
    expect(check).toMatchObject({
      ok: false,
      refused: [{ code: 'INVALID_REQUEST', details: { step: 'a', type: fields.type, fields: missing } }],
    });
  });

  it('keeps the fields of complete connector-call and policy-check steps', () => {
    const steps = [
      {
        id: 'a',
        name: 'read',
        agent: 'flight-search',
        type: 'connector-call',
        connector: 'pg',
        query: { statement: 'SELECT 1' },
      },
      {
        id: 'b',
        name: 'check',
        agent: 'hotel-search',
        type: 'policy-check',
        policy: 'p',
        input: { context: { n: 1 } },
      },
      { id: 'c', name: 'merge', agent: 'travel-coordinator', depends_on: ['a', 'b'] },
    ];
    expect(checkPlan({ steps }, REGISTRY)).toMatchObject({
      ok: true,
      steps: [
        { type: 'connector-call', connector: 'pg', query: { statement: 'SELECT 1' }, arguments: {} },
        { type: 'policy-check', policy: 'p', input: { context: { n: 1 } } },
        { type: 'llm-call' },
      ],
    });
  });

  it('reads a plan out of a fenced answer', () => {
    const text = '```json\n{"steps":[{"id":"a","name":"x","agent":"flight-search"}]}\n```';
    expect(checkPlan(extractJson(text), REGISTRY)).toMatchObject({
      ok: true,
      steps: [{ id: 'a', type: 'llm-call', depends_on: [] }],
    });
  });
});

describe('topologicalOrder', () => {
  it('orders dependencies first and keeps the listed order among ready steps', () => {
    const steps = [step('c', 'travel-coordinator', ['b', 'a']), step('b', 'hotel-search'), step('a', 'flight-search')];
    expect(topologicalOrder(steps).map((s) => s.id)).toEqual(['b', 'a', 'c']);
  });
});
