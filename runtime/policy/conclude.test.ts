import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PolicyMode } from '../../api/index.js';
import { conclude, type ConcludeContext } from './conclude.js';
import { PolicyFailureLog } from './failures.js';
import type { PlanDecision } from './plan.js';

const decision = (name: string, action: 'block' | 'warn' | 'log', over: Partial<PlanDecision> = {}): PlanDecision => ({
  package: name,
  name: `${name}.rego`,
  action,
  priority: 100,
  blocked: true,
  deny: [`${name} matched`],
  warn: [],
  allow: undefined,
  durationMs: 0,
  ...over,
});

const context = (modes: Record<string, PolicyMode>, exempt: Record<string, string> = {}): ConcludeContext => ({
  failureLog: new PolicyFailureLog(),
  log: pino({ level: 'silent' }),
  modeOf: (p) => modes[p] ?? 'enforce',
  shadowOf: (p) => (p === 'candidate' ? 'current' : undefined),
  exemptionOf: (p) => exempt[p],
});

const run = (d: PlanDecision, ctx: ConcludeContext) => conclude({ decisions: [d], durationMs: 1 }, ctx);

describe('conclude: action × mode', () => {
  it.each([
    { action: 'block', mode: 'enforce', approved: false, warned: false, decision: 'block' },
    { action: 'block', mode: 'warn', approved: true, warned: true, decision: 'warn' },
    { action: 'block', mode: 'audit', approved: true, warned: false, decision: 'audit' },
    { action: 'warn', mode: 'enforce', approved: true, warned: true, decision: 'warn' },
    { action: 'warn', mode: 'warn', approved: true, warned: true, decision: 'warn' },
    { action: 'warn', mode: 'audit', approved: true, warned: false, decision: 'audit' },
    { action: 'log', mode: 'enforce', approved: true, warned: false, decision: 'log' },
    { action: 'log', mode: 'warn', approved: true, warned: false, decision: 'log' },
    { action: 'log', mode: 'audit', approved: true, warned: false, decision: 'log' },
  ] as const)('$action under $mode: $decision', ({ action, mode, approved, warned, decision: d }) => {
    const e = run(decision('p', action), context({ p: mode }));
    expect(e.approved).toBe(approved);
    expect(e.warnings.length > 0).toBe(warned);
    expect(e.results).toEqual([{ policy: 'p', mode, would: action, decision: d }]);
  });

  it('records nothing for a policy that did not match, but counts it as evaluated', () => {
    const e = run(decision('p', 'block', { blocked: false, deny: [] }), context({}));
    expect(e).toMatchObject({ approved: true, results: [], evaluated: ['p'] });
  });

  it('an exception exempts the call: no block, recorded as exempted with its name', () => {
    const e = run(decision('p', 'block'), context({}, { p: 'team-a-migration' }));
    expect(e.approved).toBe(true);
    expect(e.results).toEqual([
      { policy: 'p', mode: 'enforce', would: 'block', decision: 'exempted', exception: 'team-a-migration' },
    ]);
  });

  it('a failure blocks an enforced policy but not an audited one', () => {
    const failure = { failure: { class: 'deadline' as const, message: 'too slow' }, deny: [] };
    expect(run(decision('p', 'log', failure), context({})).approved).toBe(false);
    const audited = run(decision('p', 'log', failure), context({ p: 'audit' }));
    expect(audited.approved).toBe(true);
    expect(audited.results[0]).toMatchObject({ would: 'block', decision: 'audit' });
  });

  it('a shadow policy carries the policy it shadows', () => {
    const e = run(decision('candidate', 'block'), context({ candidate: 'audit' }));
    expect(e.results).toEqual([
      { policy: 'candidate', mode: 'audit', would: 'block', decision: 'audit', shadowOf: 'current' },
    ]);
  });
});

describe('conclude: require_approval', () => {
  const asks = (over: Partial<PlanDecision> = {}) =>
    decision('p', 'block', { blocked: false, deny: [], approval: ['a person must approve'], ...over });

  it('parks an enforced call: approved by the policies, with the approval to ask for', () => {
    const e = run(asks(), context({}));
    expect(e.approved).toBe(true);
    expect(e.approvals).toEqual([{ policy: 'p', reasons: ['a person must approve'] }]);
  });

  it('warns under warn mode, records nothing under audit mode or an exception', () => {
    const warned = run(asks(), context({ p: 'warn' }));
    expect(warned.approvals).toBeUndefined();
    expect(warned.warnings).toEqual(['p: approval would be required: a person must approve']);
    const audited = run(asks(), context({ p: 'audit' }));
    expect([audited.approvals, audited.warnings]).toEqual([undefined, []]);
    const exempt = run(asks(), context({}, { p: 'exc-1' }));
    expect([exempt.approvals, exempt.warnings]).toEqual([undefined, []]);
  });

  it('lets a deny win over an approval of the same policy', () => {
    const e = run(asks({ blocked: true, deny: ['no'] }), context({}));
    expect(e.approved).toBe(false);
    expect(e.approvals).toBeUndefined();
  });
});
