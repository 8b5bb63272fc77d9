import { describe, expect, it } from 'vitest';
import { decide } from './decision.js';
import { compile } from './engine.js';
import { PolicySet, PolicySetCache } from './policyset.js';

const PII = `package steward.pii
deny contains "ssn" if regex.match(\`\\d{3}-\\d{2}-\\d{4}\`, input.query)
warn contains "email" if contains(input.query, "@")
`;
const ALLOWLIST = `package steward.allow
default allow := false
allow if input.client_id == "trusted"
`;

describe('decide', () => {
  const p = compile([
    { name: 'pii.rego', source: PII },
    { name: 'allow.rego', source: ALLOWLIST },
    { name: 'boom.rego', source: 'package steward.boom\nallow := x if x := {"a": 1}[input.k]\nallow := 2 if true' },
  ]);

  it.each([
    ['blocks when a deny message exists', 'steward.pii', { query: 'my ssn is 123-45-6789' }, true, ['ssn'], []],
    ['allows when nothing denies and allow is not defined', 'steward.pii', { query: 'hello' }, false, [], []],
    ['keeps warnings without blocking', 'steward.pii', { query: 'a@b.c' }, false, [], ['email']],
    ['blocks when allow is defined and false', 'steward.allow', { client_id: 'other' }, true, [], []],
    ['allows when allow is true', 'data.steward.allow', { client_id: 'trusted' }, false, [], []],
  ])('%s', (_n, pkg, input, blocked, deny, warn) => {
    const d = decide(p, pkg as string, input);
    expect(d.blocked).toBe(blocked);
    expect(d.deny).toEqual(deny);
    expect(d.warn).toEqual(warn);
    expect(d.error).toBeUndefined();
  });

  it('fails closed with the error when evaluation fails', () => {
    const d = decide(p, 'steward.boom', { k: 'a' });
    expect(d.blocked).toBe(true);
    expect(d.error?.code).toBe('eval_conflict_error');
  });

  it('fails closed when the deadline is exceeded', () => {
    const slow = compile([
      {
        name: 's.rego',
        source:
          'package s\ndeny contains "x" if { some a in input.xs; some b in input.xs; some c in input.xs; a + b + c < 0 }',
      },
    ]);
    const d = decide(slow, 's', { xs: Array.from({ length: 400 }, (_, i) => i) }, { deadlineMs: 20 });
    expect(d.blocked).toBe(true);
    expect(d.error?.code).toBe('eval_cancel_error');
  });
});

describe('PolicySet', () => {
  const modules = [
    { name: 'low', source: 'package low\ndeny contains "low" if input.x', priority: 1 },
    { name: 'high', source: 'package high\ndeny contains "high" if input.x', priority: 500 },
    { name: 'soft', source: 'package soft\ndeny contains "soft" if input.x', action: 'warn' as const },
    { name: 'off', source: 'package off\ndeny contains "off" if input.x', enabled: false },
  ];

  it('evaluates enabled policies in priority order and downgrades warn-action denies', () => {
    const r = PolicySet.compile(modules).evaluate({ x: true });
    expect(r.decisions.map((d) => d.name)).toEqual(['high', 'soft', 'low']);
    expect(r.blocked).toBe(true);
    expect(r.deny).toEqual(['high', 'low']);
    expect(r.warn).toEqual(['soft']);
  });

  it('does not block when only warn-action policies deny', () => {
    const r = PolicySet.compile([modules[2]!]).evaluate({ x: true });
    expect(r.blocked).toBe(false);
  });

  it('reuses the compiled plan for unchanged policies', () => {
    const cache = new PolicySetCache();
    expect(cache.get(modules)).toBe(cache.get(modules));
    expect(cache.get(modules)).not.toBe(cache.get([...modules, { name: 'x', source: 'package x' }]));
  });
});
