import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../log.js';
import { FolderSource } from '../../source/index.js';
import { RegoPolicyEngine } from '../engine.js';
import type { PolicyEvaluation } from '../types.js';

const policy = (name: string, spec: Record<string, unknown>, rego: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: ${JSON.stringify({ type: 'custom', ...spec, rego })}\n---\n`;

const BLOCK_WORD = (pkg: string, word: string) => `package ${pkg}\ndeny contains "found ${word}" if contains(input.query, "${word}")\n`;

let dir: string;
let source: FolderSource | undefined;
let engine: RegoPolicyEngine | undefined;

afterEach(async () => {
  engine?.close();
  await source?.close();
  await rm(dir, { recursive: true, force: true });
});

async function setup(yaml: string, limits = { deadlineMs: 1000, maxSteps: 1_000_000 }) {
  dir = await mkdtemp(join(tmpdir(), 'steward-engine-'));
  await writeFile(join(dir, 'p.yaml'), yaml);
  source = new FolderSource({ dirs: [dir], watch: false });
  await source.ready();
  engine = new RegoPolicyEngine({ source, log: createLogger({ level: 'silent' }), limits, isolation: false });
  return engine;
}

/** Evaluates a short query, which must stay on the inline (synchronous) path. */
function ask(e: RegoPolicyEngine, query: string, surface: 'pre-check' | 'llm' = 'pre-check', tenantId?: string): PolicyEvaluation {
  const outcome = e.evaluate({ query, surface, context: {} }, { surface, tenantId });
  if (outcome instanceof Promise) throw new Error('a short query was not evaluated inline');
  return outcome;
}

describe('RegoPolicyEngine', () => {
  it('blocks with the reason of the highest-priority blocking policy and names every triggered policy', async () => {
    const e = await setup(policy('low', { priority: 10 }, BLOCK_WORD('p.low', 'x')) + policy('high', { priority: 500 }, BLOCK_WORD('p.high', 'x')));
    const r = ask(e, 'x marks the spot');
    expect(r).toMatchObject({ approved: false, blockReason: 'high: found x', triggered: ['high', 'low'], evaluated: ['high', 'low'] });
  });

  it('turns deny messages of a warn policy into warnings and approves', async () => {
    const e = await setup(policy('soft', { action: 'warn' }, BLOCK_WORD('p.soft', 'maybe')));
    expect(ask(e, 'maybe')).toMatchObject({ approved: true, triggered: ['soft'], warnings: ['soft: found maybe'] });
  });

  it('only logs a log policy', async () => {
    const e = await setup(policy('audit', { action: 'log' }, BLOCK_WORD('p.audit', 'note')));
    expect(ask(e, 'note')).toMatchObject({ approved: true, triggered: [], logged: ['audit'] });
  });

  it('fails closed when allow is defined and not true', async () => {
    const e = await setup(policy('gate', {}, 'package p.gate\ndefault allow := false\nallow if input.context.role == "admin"\n'));
    expect(ask(e, 'anything').approved).toBe(false);
  });

  it('skips disabled policies and policies scoped to other surfaces or tenants', async () => {
    const e = await setup(
      policy('off', { enabled: false }, BLOCK_WORD('p.off', 'x')) +
        policy('llm-only', { scope: { surfaces: ['llm'] } }, BLOCK_WORD('p.llmonly', 'x')) +
        policy('eu-only', { scope: { tenants: ['eu'] } }, BLOCK_WORD('p.euonly', 'y')),
    );
    expect(ask(e, 'x').approved).toBe(true);
    expect(ask(e, 'x', 'llm').approved).toBe(false);
    expect(ask(e, 'y').approved).toBe(true);
    expect(ask(e, 'y', 'pre-check', 'eu').approved).toBe(false);
  });

  it('reports a policy that does not compile, with its position, and keeps the others', async () => {
    const e = await setup(policy('broken', {}, 'package p.broken\ndeny contains x if {\n  x := \n}\n') + policy('fine', {}, BLOCK_WORD('p.fine', 'z')));
    expect(e.problems()).toEqual([{ policy: 'broken', message: expect.stringMatching(/broken\.rego:\d+:\d+/) }]);
    expect(ask(e, 'z').approved).toBe(false);
  });

  it('keeps the last good version when a policy is changed into one that does not compile', async () => {
    const e = await setup(policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
    await source!.apply({
      apiVersion: 'steward.dev/v1alpha1', kind: 'Policy', metadata: { name: 'evolving', namespace: 'default' },
      spec: { type: 'custom', priority: 100, enabled: true, action: 'block', regoVersion: 'v1', rego: 'package p.evolving\ndeny contains "x" if {' },
    } as never);
    expect(e.problems().map((p) => p.policy)).toEqual(['evolving']);
    expect(ask(e, 'old').approved).toBe(false);
  });

  it('fails closed when evaluation exceeds its step budget', async () => {
    const e = await setup(policy('spin', {}, 'package p.spin\ndeny contains "never" if {\n  n := count([x | some x in numbers.range(1, 100000)])\n  n < 0\n}\n'), { deadlineMs: 1000, maxSteps: 1000 });
    const r = ask(e, 'hi');
    expect(r.approved).toBe(false);
    expect(r.blockReason).toContain('spin');
  });
});
