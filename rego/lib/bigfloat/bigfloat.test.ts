import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as F from './index.js';

describe('big.Float', () => {
  it.each([
    ['0.1', '0.2', 'add', 0.3],
    ['1', '3', 'quo', 0.3333333333333333],
    ['3.3', '1.1', 'quo', 3],
    ['0.3', '0.1', 'sub', 0.2],
    ['1e-7', '1', 'mul', 1e-7],
  ] as const)('%s %s %s rounds at 64 bits to %s', (a, b, op, want) => {
    expect(F.toValue(F[op](F.fromDecimal(a), F.fromDecimal(b)))).toBe(want);
  });

  it('prints integers beyond 64 bits with the shortest digits that survive rounding', () => {
    expect(F.toValue(F.fromValue(2n ** 70n))).toBe(1180591620717411303400n);
    expect(F.toValue(F.fromValue(2n ** 63n))).toBe(9223372036854775808n);
  });

  it('round-trips every double through the shortest decimal at 53 bits', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const d = F.shortestDecimal(F.fromDecimal(String(Math.abs(x)), F.PREC53), F.PREC53);
        expect(Number(`${d.digits}e${d.exp10}`)).toBe(Math.abs(x));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['1e30', 10n ** 30n],
    ['1.50', 1.5],
    ['-0.0', 0],
    ['12345678901234567890', 12345678901234567890n],
    ['abc', undefined],
  ] as const)('decimalToValue(%s) keeps the text’s value', (text, want) => {
    expect(F.decimalToValue(text)).toBe(want);
  });
});
