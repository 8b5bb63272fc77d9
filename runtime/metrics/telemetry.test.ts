import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../testing/prometheus-text.js';
import { decisionOutcome } from '../policy/observer.js';
import type { PlanDecision } from '../policy/plan.js';
import { BoundedLabel, StewardTelemetry } from './telemetry.js';

const decision = (d: Partial<PlanDecision>): PlanDecision =>
  ({ name: 'p.rego', action: 'block', priority: 100, blocked: false, deny: [], warn: [], ...d }) as PlanDecision;

describe('decisionOutcome', () => {
  it.each([
    { name: 'allow when nothing matched', d: decision({}), outcome: 'allow' },
    { name: 'warn when only warn messages matched', d: decision({ warn: ['careful'] }), outcome: 'warn' },
    { name: 'deny when a block policy blocked', d: decision({ blocked: true, deny: ['no'] }), outcome: 'deny' },
    {
      name: 'warn when a warn policy denied',
      d: decision({ blocked: true, action: 'warn', deny: ['no'] }),
      outcome: 'warn',
    },
    {
      name: 'log when a log policy denied',
      d: decision({ blocked: true, action: 'log', deny: ['no'] }),
      outcome: 'log',
    },
    {
      name: 'failed when the evaluation failed, whatever the action',
      d: decision({ action: 'log', failure: { class: 'deadline', message: 'x' } }),
      outcome: 'failed',
    },
  ])('says $name', ({ d, outcome }) => {
    expect(decisionOutcome(d)).toBe(outcome);
  });
});

describe('BoundedLabel', () => {
  it('keeps the first values and counts later ones as other', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'c', 'a', 'd'].map((v) => label.of(v))).toEqual(['a', 'b', 'other', 'a', 'other']);
  });
});

describe('StewardTelemetry', () => {
  it('counts failed LLM calls without tokens, and reads policy failures from their source at scrape time', async () => {
    const t = new StewardTelemetry({ version: '1.2.3', defaultMetrics: false });
    t.llmCall('openai', 'gpt-4o-mini', 0.5);
    let counts = [{ policy: 'fragile', class: 'deadline', value: 2 }];
    t.watchPolicyFailures(() => counts);
    let m = parseExposition((await t.scrape()).text);
    expect(
      m.find('steward_llm_requests_total', { provider: 'openai', model: 'gpt-4o-mini', outcome: 'error' })[0]?.value,
    ).toBe(1);
    expect(m.find('steward_llm_tokens_total')).toEqual([]);
    expect(m.find('steward_policy_evaluation_failures_total', { policy: 'fragile', class: 'deadline' })[0]?.value).toBe(
      2,
    );
    expect(m.find('steward_build_info', { version: '1.2.3' })[0]?.value).toBe(1);
    counts = [];
    m = parseExposition((await t.scrape()).text);
    expect(m.find('steward_policy_evaluation_failures_total')).toEqual([]);
  });
});
