/**
 * Policies that import `future.keywords.*` — the stable keywords and OPA's experimental `and`, `or`, `not` — in
 * Rego v1 and v0 modules, compiled and decided by the runtime's policy engine as the gateway runs it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ask, closeEngine, policy, startEngine } from './harness.js';

interface KeywordCase {
  name: string;
  regoVersion: 'v0' | 'v1';
  rego: string;
  /** a query the policy denies, and one it lets through */
  denied: string;
  allowed: string;
}

const WORDS = 'split(input.query, " ")';

interface KeywordRule {
  name: string;
  imports: string;
  /** the rule in Rego v1, and in v0, where a module only gets the keywords its imports name */
  v1: string;
  v0: string;
  denied: string;
  allowed: string;
}

const both = ({ name, imports, v1, v0, denied, allowed }: KeywordRule): KeywordCase[] => [
  { name, regoVersion: 'v1', rego: `package kw.${name}\n${imports}\n${v1}\n`, denied, allowed },
  { name, regoVersion: 'v0', rego: `package kw.${name}\n${imports}\n${v0}\n`, denied, allowed },
];

const cases: KeywordCase[] = [
  {
    name: 'in',
    imports: 'import future.keywords.in',
    v1: `deny contains "in" if "bad" in ${WORDS}`,
    v0: `deny["in"] { "bad" in ${WORDS} }`,
    denied: 'a bad word',
    allowed: 'a badge',
  },
  {
    name: 'every',
    imports: 'import future.keywords.every',
    v1: `deny contains "every" if every w in ${WORDS} { startswith(w, "x") }`,
    v0: `deny["every"] { every w in ${WORDS} { startswith(w, "x") } }`,
    denied: 'xa xb',
    allowed: 'xa b',
  },
  {
    name: 'if',
    imports: 'import future.keywords.if',
    v1: 'deny contains "if" if contains(input.query, "bad")',
    v0: 'deny["if"] if contains(input.query, "bad")',
    denied: 'bad',
    allowed: 'good',
  },
  {
    name: 'contains',
    imports: 'import future.keywords.contains',
    v1: 'deny contains "contains" if contains(input.query, "bad")',
    v0: 'deny contains "contains" { contains(input.query, "bad") }',
    denied: 'bad',
    allowed: 'good',
  },
  {
    name: 'all',
    imports: 'import future.keywords',
    v1: `deny contains "all" if { some w in ${WORDS}; w == "bad" }`,
    v0: `deny contains "all" if { some w in ${WORDS}; w == "bad" }`,
    denied: 'so bad',
    allowed: 'so good',
  },
  {
    name: 'and',
    imports: 'import future.keywords.and',
    v1: 'deny contains "and" if { contains(input.query, "bad") and contains(input.query, "worse") }',
    v0: 'deny["and"] { contains(input.query, "bad") and contains(input.query, "worse") }',
    denied: 'bad and worse',
    allowed: 'bad only',
  },
  {
    name: 'or',
    imports: 'import future.keywords.or',
    v1: 'deny contains "or" if { startswith(input.query, "bad") or endswith(input.query, "bad") }',
    v0: 'deny["or"] { startswith(input.query, "bad") or endswith(input.query, "bad") }',
    denied: 'this is bad',
    allowed: 'not bad, fine',
  },
  {
    name: 'not',
    imports: 'import future.keywords.not',
    v1: 'deny contains "not" if not { startswith(input.query, "ok"); endswith(input.query, "ok") }',
    v0: 'deny["not"] { not { startswith(input.query, "ok"); endswith(input.query, "ok") } }',
    denied: 'ok, then bad',
    allowed: 'ok, then ok',
  },
].flatMap(both);

afterEach(closeEngine);

describe('Policies importing future keywords', () => {
  it.each(cases)('compiles $regoVersion `$name` and denies only the matching query', async (c) => {
    const { name, regoVersion, rego, denied, allowed } = c;
    const e = await startEngine(policy(name, { regoVersion }, rego));
    expect(e.problems()).toEqual([]);
    expect(ask(e, denied)).toMatchObject({ approved: false, blockReason: `${name}: ${name}`, triggered: [name] });
    expect(ask(e, allowed)).toMatchObject({ approved: true, triggered: [] });
  });

  it('reports `not { … }` without its import as a compile problem at its position', async () => {
    const rego = 'package kw.bare\ndeny contains "x" if not { input.query == "ok" }\n';
    const e = await startEngine(policy('bare', {}, rego));
    expect(e.problems()).toEqual([{ policy: 'bare', message: expect.stringMatching(/^bare\.rego:2:\d+: /) }]);
  });
});
