import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { T } from '../types.js';
import { defaultRegistry } from './index.js';
import { RegoLimitError, type LimitKind } from '../errors.js';
import { MAX_RESULT_CHARS, MAX_RESULT_ELEMENTS } from './limits.js';

function limitKindOf(source: string, input: unknown, maxSteps = 1_000_000): LimitKind | 'none' {
  const p = compile([{ name: 'policy.rego', source: `package t\n${source}` }]);
  try {
    p.evalRef('data.t.x', { input, maxSteps, deadlineMs: 60_000 });
    return 'none';
  } catch (e) {
    if (e instanceof RegoLimitError) return e.kind;
    throw e;
  }
}

const BIG = 'x'.repeat(1 << 20);

describe('builtin size limits and charges', () => {
  it.each([
    {
      name: 'refuses numbers.range past the element limit before building it',
      src: 'x := sort(numbers.range(1, 10000000))',
      kind: 'size',
    },
    {
      name: 'refuses json.marshal of a range past the element limit',
      src: 'x := json.marshal(numbers.range(1, 10000000))',
      kind: 'size',
    },
    {
      name: 'refuses numbers.range_step past the element limit',
      src: 'x := numbers.range_step(0, 100000000, 3)',
      kind: 'size',
    },
    {
      name: 'refuses concat past the character limit',
      src: 'x := concat("", [input.s | some _ in numbers.range(1, 32)])',
      kind: 'size',
    },
    {
      name: 'refuses replace growing past the character limit',
      src: 'x := replace(input.s, "x", "xxxxxxxxxxxxxxxxxxxx")',
      kind: 'size',
    },
    {
      name: 'refuses replace with an empty old text growing past the limit',
      src: 'x := replace(input.s, "", "yyyyyyyyyyyyyyyyyyyy")',
      kind: 'size',
    },
    {
      name: 'refuses strings.replace_n growing past the character limit',
      src: 'x := strings.replace_n({"x": "yyyyyyyyyyyyyyyyyyyy"}, input.s)',
      kind: 'size',
    },
    {
      name: 'refuses sprintf output past the character limit',
      src: 'x := sprintf(concat("", ["%999999d" | some _ in numbers.range(1, 20)]), [1 | some _ in numbers.range(1, 20)])',
      kind: 'size',
    },
    {
      name: 'refuses json.marshal of a deep value past the character limit',
      src: 'x := json.marshal([input.s | some _ in numbers.range(1, 20)])',
      kind: 'size',
    },
  ] as const)('$name', ({ src, kind }) => {
    expect(limitKindOf(src, { s: BIG })).toBe(kind);
  });

  it.each([
    { name: 'charges sort by the size of its argument', src: 'x := sort(numbers.range(1, 600000))' },
    {
      name: 'charges json.marshal by the whole value',
      src: 'x := json.marshal([numbers.range(1, 300000), numbers.range(1, 300000)])',
    },
    {
      name: 'charges regex matching by the length of the text',
      src: 'x := [b | some i in numbers.range(1, 100); b := regex.match("a+b", input.s)]',
    },
    {
      name: 'charges array.concat by its arguments',
      src: 'x := array.concat(numbers.range(1, 300000), numbers.range(1, 300000))',
    },
  ])('$name', ({ src }) => {
    // each builds or reads ~600,000 units: within the default budget, past a 500,000-step one
    expect(limitKindOf(src, { s: BIG }, 500_000)).toBe('steps');
    expect(limitKindOf(src, { s: 'x'.repeat(1000) }, 10_000_000)).toBe('none');
  });

  it('leaves O(1) builtins on large values uncharged', () => {
    // count and object.get 10,000 times on a 100,000-element array: charging its size would be 10^9 steps
    const src = 'x := [n | some i in numbers.range(1, 10000); n := count(object.get(input, "xs", []))]';
    expect(limitKindOf(src, { xs: Array.from({ length: 100_000 }, (_, i) => i) }, 200_000)).toBe('none');
  });

  it.each([
    { name: 'throws the deadline error from evalRef', settled: false },
    { name: 'settles every ref with the deadline error', settled: true },
  ])('when one long builtin call ends past the deadline, $name', ({ settled }) => {
    // a builtin that works 30 ms without charging or checking anything: no check runs during it
    const registry = defaultRegistry().clone();
    registry.add({ name: 'test.slow', args: [], result: T.boolean }, () => {
      const until = performance.now() + 30;
      while (performance.now() < until);
      return true;
    });
    const p = compile([{ name: 'policy.rego', source: 'package t\nx := test.slow()\ny := 1' }], { registry });
    const opts = { deadlineMs: 5 };
    if (!settled) {
      expect(() => p.evalRef('data.t.x', opts)).toThrow(RegoLimitError);
      return;
    }
    const out = p.evalRefsSettled(['data.t.y', 'data.t.x'], opts);
    for (const r of out) expect((r as { error?: RegoLimitError }).error?.kind).toBe('deadline');
  });

  it('documents limits that leave room for ordinary policies', () => {
    expect(MAX_RESULT_ELEMENTS).toBe(1_000_000);
    expect(MAX_RESULT_CHARS).toBe(16 * 1024 * 1024);
  });
});
