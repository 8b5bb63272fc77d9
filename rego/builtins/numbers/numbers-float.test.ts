import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as F from '../../lib/bigfloat/index.js';
import { toJSONText } from '../../value.js';
import { div, minus, mul, plus } from './numbers.js';

describe('arithmetic over big.Float', () => {
  it('takes the exact fast path only where the 64-bit result agrees', () => {
    const dyadic = fc.integer({ min: -(2 ** 30), max: 2 ** 30 }).map((n) => n / 1024);
    fc.assert(
      fc.property(dyadic, dyadic, (a, b) => {
        for (const [op, f] of [
          [plus, F.add],
          [minus, F.sub],
          [mul, F.mul],
        ] as const) {
          expect(toJSONText(op(a, b))).toBe(toJSONText(F.toNumber(f(F.fromValue(a), F.fromValue(b)))));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('divides integers exactly when the divisor divides the dividend', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 1, max: 1000 }), (q, d) => {
        expect(div(q * d, d)).toBe(q === 0 ? 0 : q);
      }),
    );
  });
});
