import { describe, expect, it } from 'vitest';
import { formatDuration, formatJson, formatJunit, formatPretty, passed, type TestResult } from './index.js';

const at = (row: number, file = 'authz_test.rego') => ({ file, row, col: 1 });
const RESULTS: TestResult[] = [
  {
    package: 'data.authz_test',
    name: 'test_ok',
    fullName: 'data.authz_test.test_ok',
    location: at(3),
    outcome: 'pass',
    durationMs: 1.2,
  },
  {
    package: 'data.authz_test',
    name: 'test_bad',
    fullName: 'data.authz_test.test_bad',
    location: at(5),
    outcome: 'fail',
    durationMs: 0.0004,
    message: 'test_bad is undefined',
    output: ['looked at <x>'],
  },
  {
    package: 'data.authz_test',
    name: 'test_err',
    fullName: 'data.authz_test.test_err',
    location: at(7),
    outcome: 'error',
    durationMs: 0.25,
    error: {
      code: 'eval_conflict_error',
      message: 'authz_test.rego:6: eval_conflict_error: complete rules must not produce multiple outputs',
    },
  },
  {
    package: 'data.other',
    name: 'todo_test_x',
    fullName: 'data.other.todo_test_x',
    location: at(2, 'other.rego'),
    outcome: 'skip',
    durationMs: 0,
  },
];

describe('formatPretty', () => {
  it('prints only failures and errors under their file, then the counts', () => {
    expect(formatPretty(RESULTS)).toBe(
      [
        'authz_test.rego:',
        'data.authz_test.test_bad: FAIL (400ns)',
        '  authz_test.rego:5: test_bad is undefined',
        '    looked at <x>',
        'data.authz_test.test_err: ERROR (250µs)',
        '  authz_test.rego:6: eval_conflict_error: complete rules must not produce multiple outputs',
        '-'.repeat(80),
        'PASS: 1/4',
        'FAIL: 1/4',
        'SKIPPED: 1/4',
        'ERROR: 1/4',
        '',
      ].join('\n'),
    );
  });

  it('prints every test with -v, skipped ones without a time', () => {
    const text = formatPretty(RESULTS, { verbose: true });
    expect(text).toContain('data.authz_test.test_ok: PASS (1.2ms)\n');
    expect(text).toContain('\nother.rego:\ndata.other.todo_test_x: SKIPPED\n');
  });

  it('prints the summary alone when everything passed', () => {
    expect(formatPretty(RESULTS.slice(0, 1))).toBe('PASS: 1/1\n');
  });
});

describe('formatJson', () => {
  it("writes OPA's fields: fail, skip and error only when set, the duration in nanoseconds", () => {
    const out = JSON.parse(formatJson(RESULTS));
    expect(out[0]).toEqual({ location: at(3), package: 'data.authz_test', name: 'test_ok', duration: 1_200_000 });
    expect(out[1]).toMatchObject({ fail: true, message: 'test_bad is undefined', output: 'looked at <x>' });
    expect(out[2].error.code).toBe('eval_conflict_error');
    expect(out[3]).toMatchObject({ skip: true, duration: 0 });
  });
});

describe('formatJunit', () => {
  it('writes one testsuite per package with the counts, and escapes text', () => {
    const xml = formatJunit(RESULTS);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(xml).toMatch(/<testsuites name="steward policy test" tests="4" failures="1" errors="1" skipped="1"/);
    expect(xml).toMatch(/<testsuite name="data.authz_test" tests="3" failures="1" errors="1" skipped="0"/);
    expect(xml).toContain('<system-out>looked at &lt;x&gt;</system-out>');
    expect(xml).toContain('<skipped/>');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
  });
});

describe('formatDuration', () => {
  it.each([
    [0.000607, '607ns'],
    [0.001417, '1.417µs'],
    [9.109334, '9.109334ms'],
    [1200, '1.2s'],
  ])('prints %s ms as Go prints a duration: %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('passed', () => {
  it('lets skipped tests pass a run and fails it on a failure or an error', () => {
    expect(passed([RESULTS[0]!, RESULTS[3]!])).toBe(true);
    expect(passed(RESULTS.slice(0, 2))).toBe(false);
    expect(passed([RESULTS[2]!])).toBe(false);
  });
});
