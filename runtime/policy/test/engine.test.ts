import { afterEach, describe, expect, it } from 'vitest';
import { ask, closeEngine, engineSource, policy, startEngine } from './harness.js';

const BLOCK_WORD = (pkg: string, word: string) =>
  `package ${pkg}\ndeny contains "found ${word}" if contains(input.query, "${word}")\n`;

afterEach(closeEngine);

describe('RegoPolicyEngine', () => {
  it('blocks with the reason of the highest-priority blocking policy and names every triggered policy', async () => {
    const e = await startEngine(
      policy('low', { priority: 10 }, BLOCK_WORD('p.low', 'x')) +
        policy('high', { priority: 500 }, BLOCK_WORD('p.high', 'x')),
    );
    const r = ask(e, 'x marks the spot');
    expect(r).toMatchObject({
      approved: false,
      blockReason: 'high: found x',
      triggered: ['high', 'low'],
      evaluated: ['high', 'low'],
    });
  });

  it('turns deny messages of a warn policy into warnings and approves', async () => {
    const e = await startEngine(policy('soft', { action: 'warn' }, BLOCK_WORD('p.soft', 'maybe')));
    expect(ask(e, 'maybe')).toMatchObject({ approved: true, triggered: ['soft'], warnings: ['soft: found maybe'] });
  });

  it('only logs a log policy', async () => {
    const e = await startEngine(policy('audit', { action: 'log' }, BLOCK_WORD('p.audit', 'note')));
    expect(ask(e, 'note')).toMatchObject({ approved: true, triggered: [], logged: ['audit'] });
  });

  it('fails closed when allow is defined and not true', async () => {
    const e = await startEngine(
      policy('gate', {}, 'package p.gate\ndefault allow := false\nallow if input.context.role == "admin"\n'),
    );
    expect(ask(e, 'anything').approved).toBe(false);
  });

  it('skips disabled policies and policies scoped to other surfaces or tenants', async () => {
    const e = await startEngine(
      policy('off', { enabled: false }, BLOCK_WORD('p.off', 'x')) +
        policy('llm-only', { scope: { surfaces: ['llm'] } }, BLOCK_WORD('p.llmonly', 'x')) +
        policy('eu-only', { scope: { tenants: ['eu'] } }, BLOCK_WORD('p.euonly', 'y')),
    );
    expect(ask(e, 'x').approved).toBe(true);
    expect(ask(e, 'x', { surface: 'llm' }).approved).toBe(false);
    expect(ask(e, 'y').approved).toBe(true);
    expect(ask(e, 'y', { surface: 'pre-check', tenantId: 'eu' }).approved).toBe(false);
  });

  it('reports a policy that does not compile, with its position, and keeps the others', async () => {
    const e = await startEngine(
      policy('broken', {}, 'package p.broken\ndeny contains x if {\n  x := \n}\n') +
        policy('fine', {}, BLOCK_WORD('p.fine', 'z')),
    );
    expect(e.problems()).toEqual([{ policy: 'broken', message: expect.stringMatching(/broken\.rego:\d+:\d+/) }]);
    expect(ask(e, 'z').approved).toBe(false);
  });

  it('keeps the last good version when a policy is changed into one that does not compile', async () => {
    const e = await startEngine(policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
    await engineSource().apply({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'evolving', namespace: 'default' },
      spec: {
        type: 'custom',
        priority: 100,
        enabled: true,
        action: 'block',
        regoVersion: 'v1',
        rego: 'package p.evolving\ndeny contains "x" if {',
      },
    } as never);
    expect(e.problems().map((p) => p.policy)).toEqual(['evolving']);
    expect(ask(e, 'old').approved).toBe(false);
  });

  it("reports each policy's load state after every compile: loaded, not compiled (with its position), disabled", async () => {
    const e = await startEngine(
      policy('good', {}, BLOCK_WORD('p.good', 'a')) + policy('off', { enabled: false }, BLOCK_WORD('p.off', 'b')),
    );
    expect(e.loadStates()).toEqual([
      { namespace: 'default', name: 'good', generation: 0, loaded: true },
      { namespace: 'default', name: 'off', generation: 0, loaded: true },
    ]);
    const compiles: string[][] = [];
    e.onCompiled((states) => compiles.push(states.map((s) => `${s.name}:${s.loaded}`)));
    await engineSource().apply({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'good', namespace: 'default' },
      spec: {
        type: 'custom',
        priority: 100,
        enabled: true,
        action: 'block',
        regoVersion: 'v1',
        rego: 'package p.good\ndeny contains "x" if {',
      },
    } as never);
    expect(compiles).toEqual([['good:false', 'off:true']]);
    expect(e.loadStates()[0]).toMatchObject({
      name: 'good',
      loaded: false,
      error: expect.stringMatching(/^good\.rego:\d+:\d+: /),
    });
    expect(ask(e, 'a').approved).toBe(false);
  });

  it("does not recompile for a change of status only (another writer's)", async () => {
    const e = await startEngine(policy('steady', {}, BLOCK_WORD('p.steady', 'a')));
    const compiles: number[] = [];
    e.onCompiled(() => compiles.push(1));
    await engineSource().apply({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'steady', namespace: 'default' },
      spec: {
        type: 'custom',
        priority: 100,
        enabled: true,
        action: 'block',
        regoVersion: 'v1',
        strictBuiltinErrors: true,
        rego: BLOCK_WORD('p.steady', 'a'),
      },
      status: { byPod: [{ pod: 'gw-1', observedGeneration: 0, loaded: true }] },
    } as never);
    expect(engineSource().get('Policy', 'steady')?.status?.byPod).toHaveLength(1);
    expect(compiles).toEqual([]);
  });

  it('fails closed when evaluation exceeds its step budget', async () => {
    const e = await startEngine(
      policy(
        'spin',
        {},
        'package p.spin\ndeny contains "never" if {\n  n := count([x | some x in numbers.range(1, 100000)])\n  n < 0\n}\n',
      ),
      { limits: { deadlineMs: 1000, maxSteps: 1000 } },
    );
    const r = ask(e, 'hi');
    expect(r.approved).toBe(false);
    expect(r.blockReason).toContain('spin');
  });
});
