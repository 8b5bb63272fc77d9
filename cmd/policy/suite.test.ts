import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderSource } from '../../runtime/source/index.js';
import { validateFiles } from '../validate-cli.js';
import { PolicyCliError } from './errors.js';
import { judge } from './suite-run.js';
import { parseSuite } from './suite.js';

const PACK = new URL('../../config/policies', import.meta.url).pathname;

type Judged = Parameters<typeof judge>[1];
const evaluation = (e: Partial<Judged>): Judged => ({ approved: true, triggered: [], warnings: [], ...e });

describe('parseSuite', () => {
  it('reads paths, inline manifests and cases with their lines', () => {
    const suite = parseSuite(
      's.policytest',
      [
        'policy: [../policies, {apiVersion: steward.dev/v1alpha1, kind: Policy}]',
        'builtinPack: true',
        'cases:',
        '  - name: one',
        '    input: {query: a}',
        '    expect: {decision: allow}',
        '  - {name: two, input: {query: b}, scope: {organization: acme}, expect: {decision: block, reason: x}}',
      ].join('\n'),
    );
    expect(suite.paths).toEqual(['../policies']);
    expect(suite.inline).toEqual([{ apiVersion: 'steward.dev/v1alpha1', kind: 'Policy' }]);
    expect(suite.builtinPack).toBe(true);
    expect(suite.cases.map((c) => [c.name, c.line])).toEqual([
      ['one', 4],
      ['two', 7],
    ]);
  });

  it.each([
    [
      'an unknown field',
      'policy: p\ncases:\n  - {name: a, input: {query: a}, expect: {decision: allow}, note: x}',
      /:3: cases\.0: /,
    ],
    ['no cases', 'policy: p\ncases: []', /cases: /],
    ['two documents', 'policy: p\n---\npolicy: q', /a suite is one YAML document, not 2/],
    [
      'a case name used twice',
      'policy: p\ncases:\n  - {name: a, input: {}, expect: {decision: allow}}\n  - {name: a, input: {}, expect: {decision: allow}}',
      /:4: cases\.1\.name: "a" is used twice/,
    ],
    ['broken YAML', 'policy: [p\ncases: x', /^s\.policytest:\d+: /],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseSuite('s.policytest', text)).toThrow(PolicyCliError);
    expect(() => parseSuite('s.policytest', text)).toThrow(message);
  });
});

describe('judge', () => {
  it('accepts a decision that matches, policies in any order', () => {
    const e = evaluation({ approved: false, triggered: ['b', 'a'], blockReason: 'a: found x' });
    expect(judge({ decision: 'block', policies: ['a', 'b'], reason: 'found x' }, e)).toEqual([]);
  });

  it('tells allow (no warnings) from warn', () => {
    expect(judge({ decision: 'allow' }, evaluation({ triggered: ['p'], warnings: ['p: careful'] }))).toEqual([
      'expected allow, got warn (policies: p; warnings: p: careful)',
    ]);
  });

  it('names every expectation that was not met', () => {
    const e = evaluation({ approved: false, triggered: ['a'], blockReason: 'a: y' });
    expect(judge({ decision: 'block', policies: ['b'], reason: 'x', warnings: ['w'] }, e)).toEqual([
      'expected policies b, got a',
      'expected a block reason containing "x", got "a: y"',
      'expected a warning containing "w", got none',
    ]);
  });
});

describe('the pack folder', () => {
  it('holds its suite in files the gateway does not read as manifests', async () => {
    const names = await readdir(join(PACK, 'tests'));
    expect(names.some((n) => n.endsWith('.policytest'))).toBe(true);
    const source = new FolderSource({ dirs: [PACK], watch: false });
    await source.ready();
    expect(source.issues()).toEqual([]);
    expect(source.list('Policy').map((p) => p.metadata.name)).toHaveLength(7);
    await source.close();
    const report = await validateFiles([PACK], { strict: true });
    expect(report).toMatchObject({ errors: [], skipped: [] });
  });
});
