import { describe, expect, it } from 'vitest';
import { RegoCompileError } from '../errors.js';
import { RegexpSyntaxError } from '../lib/goregex/index.js';
import { runTests, testFilter } from './index.js';

const AUTHZ = `package authz

allow if input.user == "bob"

limit := data.config.max

allowed_roles contains r if some r in data.roles
`;

const TESTS = `package authz_test

import data.authz

test_allowed if authz.allow with input as {"user": "bob"}

test_denied if not authz.allow with input as {"user": "eve"}

test_limit_from_data if authz.limit == 3 with data.config.max as 3

test_roles_from_data if authz.allowed_roles == {"admin"} with data.roles as ["admin"]

test_wrong if authz.allow with input as {"user": "eve"}

test_false := false

test_number := 5

conflict := x if some x in [1, 2]

test_conflict if conflict == 1

todo_test_later if false

test_twice if true

test_twice if false

helper_not_a_test if true

test_function(x) := x
`;

const run = (options = {}) =>
  runTests(
    [
      { name: 'authz.rego', source: AUTHZ },
      { name: 'authz_test.rego', source: TESTS },
    ],
    { now: () => 0, ...options },
  );

const outcomes = (results: ReturnType<typeof run>) => Object.fromEntries(results.map((r) => [r.fullName, r.outcome]));

describe('runTests', () => {
  it('runs every test_ rule as OPA does: true passes, undefined or not true fails, an error is an ERROR', () => {
    expect(outcomes(run())).toEqual({
      'data.authz_test.test_allowed': 'pass',
      'data.authz_test.test_denied': 'pass',
      'data.authz_test.test_limit_from_data': 'pass',
      'data.authz_test.test_roles_from_data': 'pass',
      'data.authz_test.test_wrong': 'fail',
      'data.authz_test.test_false': 'fail',
      'data.authz_test.test_number': 'fail',
      'data.authz_test.test_conflict': 'error',
      'data.authz_test.todo_test_later': 'skip',
      'data.authz_test.test_twice': 'pass',
      'data.authz_test.test_twice#01': 'fail',
    });
  });

  it('says why a test failed and where its rule is', () => {
    const byName = new Map(run().map((r) => [r.name, r]));
    expect(byName.get('test_wrong')).toMatchObject({
      message: 'test_wrong is undefined',
      location: { file: 'authz_test.rego', row: 13, col: 1 },
    });
    expect(byName.get('test_false')?.message).toBe('test_false is false, not true');
    expect(byName.get('test_number')?.message).toBe('test_number is 5, not true');
    expect(byName.get('test_conflict')?.error).toEqual({
      code: 'eval_conflict_error',
      message: expect.stringContaining('complete rules must not produce multiple outputs'),
    });
  });

  it('runs the second definition of a test alone, as test_x#01 at its own line', () => {
    const twice = run().filter((r) => r.name.startsWith('test_twice'));
    expect(twice.map((r) => [r.name, r.outcome, r.location?.row])).toEqual([
      ['test_twice', 'pass', 25],
      ['test_twice#01', 'fail', 27],
    ]);
  });

  it('counts a default as no definition of its own', () => {
    const source = 'package d\n\ndefault test_x := false\n\ntest_x if true\n\ndefault test_only := true\n';
    expect(runTests([{ name: 'd.rego', source }]).map((r) => [r.name, r.outcome, r.location?.row])).toEqual([
      ['test_x', 'pass', 5],
      ['test_only', 'pass', 7],
    ]);
  });

  it('skips todo tests without running them', () => {
    const todo = run().find((r) => r.name === 'todo_test_later');
    expect(todo).toMatchObject({ outcome: 'skip', durationMs: 0 });
  });

  it('selects tests by full name with --run (Go regexp, unanchored)', () => {
    const results = run({ filter: testFilter('data\\.authz_test\\.test_(allowed|denied)$') });
    expect(results.map((r) => r.name)).toEqual(['test_allowed', 'test_denied']);
    expect(run({ filter: testFilter('twice#01') }).map((r) => r.name)).toEqual(['test_twice#01']);
  });

  it("refuses a --run pattern Go's regexp does not accept", () => {
    expect(() => testFilter('(')).toThrow(RegexpSyntaxError);
  });

  it('keeps what print() wrote with the test', () => {
    const [r] = runTests([{ name: 't.rego', source: 'package t\n\ntest_p if {\n\tprint("seen", 1)\n\tfalse\n}\n' }]);
    expect(r).toMatchObject({ outcome: 'fail', output: ['seen 1'] });
  });

  it('stops a test at its timeout or step budget with an ERROR', () => {
    const source = 'package t\n\ntest_slow if count([x | some x in numbers.range(1, 5000000)]) > 0\n';
    const [r] = runTests([{ name: 't.rego', source }], { maxSteps: 1000 });
    expect(r).toMatchObject({ outcome: 'error', error: { code: 'eval_cancel_error' } });
  });

  it('throws the compile error with file, row and column', () => {
    const broken = 'package t\n\ntest_x if {\n\ty := x\n}\n';
    try {
      runTests([{ name: 'broken_test.rego', source: broken }]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RegoCompileError);
      expect((err as RegoCompileError).errors[0]).toMatchObject({ file: 'broken_test.rego', row: 4 });
      expect((err as RegoCompileError).rendered).toMatch(/^broken_test\.rego:4:\d+: /);
    }
  });

  it('finds tests in every package, v0 modules included', () => {
    const results = runTests([
      { name: 'a.rego', source: 'package a\n\ntest_a if true\n' },
      { name: 'b.rego', source: 'package b.c\n\ntest_b { true }\n', regoVersion: 'v0' },
    ]);
    expect(results.map((r) => [r.fullName, r.outcome])).toEqual([
      ['data.a.test_a', 'pass'],
      ['data.b.c.test_b', 'pass'],
    ]);
  });
});
