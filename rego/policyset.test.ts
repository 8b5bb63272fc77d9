import { describe, expect, it } from 'vitest';
import { PolicySet } from './policyset.js';

describe('PolicySet', () => {
  it('reads decisions a package defines only through base data, and skips the refs nothing defines', () => {
    const set = PolicySet.compile(
      [
        { name: 'rules.rego', source: 'package rules\ndeny contains "no" if input.x == 1\n' },
        { name: 'data.rego', source: 'package fromdata\nunrelated := true\n' },
      ],
      { data: { fromdata: { warn: ['from base data'] } } },
    );
    const d = set
      .evaluate({ x: 1 })
      .decisions.map((x) => ({ name: x.name, blocked: x.blocked, deny: x.deny, warn: x.warn, allow: x.allow }));
    expect(d).toEqual([
      { name: 'rules.rego', blocked: true, deny: ['no'], warn: [], allow: undefined },
      { name: 'data.rego', blocked: false, deny: [], warn: ['from base data'], allow: undefined },
    ]);
  });

  it('reads require_approval as a set of reasons beside deny, without blocking', () => {
    const set = PolicySet.compile([
      {
        name: 'refunds.rego',
        source:
          'package refunds\nrequire_approval contains "over 500" if input.amount > 500\ndeny contains "negative" if input.amount < 0\n',
      },
      { name: 'plain.rego', source: 'package plain\ndeny contains "never" if false\n' },
    ]);
    const [refunds, plain] = set.evaluate({ amount: 900 }).decisions;
    expect([refunds!.blocked, refunds!.approval]).toEqual([false, ['over 500']]);
    expect(plain!.approval).toBeUndefined();
    expect(set.evaluate({ amount: 100 }).decisions[0]!.approval).toBeUndefined();
    expect(set.evaluate({ amount: -1 }).decisions[0]!.blocked).toBe(true);
  });

  it('evaluates a decision rule defined above the package by a ref head', () => {
    const set = PolicySet.compile([
      { name: 'parent.rego', source: 'package p\nchild.deny contains "from the parent" if input.x\n' },
      { name: 'child.rego', source: 'package p.child\nother := 1\n' },
    ]);
    const child = set.evaluate({ x: true }).decisions.find((x) => x.name === 'child.rego')!;
    expect(child.deny).toEqual(['from the parent']);
    expect(child.blocked).toBe(true);
  });

  it('treats a builtin error as undefined (no block) and blocks when a defined allow is not true', () => {
    const set = PolicySet.compile([
      { name: 'a.rego', source: 'package a\ndeny contains x if { x := input.n / 0 }\n' },
      { name: 'b.rego', source: 'package b\nallow if input.ok\n' },
    ]);
    const r = set.evaluate({ n: 1, ok: true });
    expect(r.decisions.map((d) => [d.name, d.blocked])).toEqual([
      ['a.rego', false],
      ['b.rego', false],
    ]);
    const denied = set.evaluate({ n: 1, ok: false });
    expect(denied.decisions.find((d) => d.name === 'b.rego')!.blocked).toBe(true);
  });
});
