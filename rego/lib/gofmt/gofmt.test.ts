import { describe, expect, it } from 'vitest';
import { formatFloat, goSprintf, quote, quoteToASCII, type GoArg } from './index.js';

const int = (v: number): GoArg => ({ t: 'int', v: BigInt(v) });
const str = (v: string): GoArg => ({ t: 'string', v });
const float = (v: number): GoArg => ({ t: 'float', v });

// Expected texts are Go's fmt.Sprintf output for the same arguments.
describe('goSprintf', () => {
  it.each([
    { name: 'pads with a width', format: '%5d|%-5d|', args: [int(42), int(7)], want: '   42|7    |' },
    {
      name: 'takes the width from an argument',
      format: '%*d|%-*d|',
      args: [int(4), int(1), int(3), int(2)],
      want: '   1|2  |',
    },
    { name: 'takes the precision from an argument', format: '%.*f', args: [int(2), float(3.14159)], want: '3.14' },
    { name: 'zero-pads a signed float', format: '%08.3f', args: [float(-3.14159)], want: '-003.142' },
    { name: 'shows the sign with +', format: '%+d %+d', args: [int(5), int(-5)], want: '+5 -5' },
    { name: 'reorders arguments by index', format: '%[2]s %[1]s', args: [str('a'), str('b')], want: 'b a' },
    { name: 'quotes strings with %q', format: '%q', args: [str('a"b')], want: '"a\\"b"' },
    { name: 'hex-encodes strings with %x', format: '%x', args: [str('hi')], want: '6869' },
    { name: 'prints a percent sign', format: '100%%', args: [], want: '100%' },
    { name: 'reports a wrong verb for the type', format: '%d', args: [str('x')], want: '%!d(string=x)' },
    { name: 'reports a missing argument', format: '%d %d', args: [int(1)], want: '1 %!d(MISSING)' },
    { name: 'reports extra arguments', format: '%d', args: [int(1), str('x')], want: '1%!(EXTRA string=x)' },
    { name: 'reports a missing verb', format: 'a%', args: [], want: 'a%!(NOVERB)' },
    { name: 'reports a bad index', format: '%[3]d', args: [int(1)], want: '%!d(BADINDEX)' },
    { name: 'reports a bad width argument', format: '%*d', args: [str('x'), int(1)], want: '%!(BADWIDTH)1' },
    { name: 'reports a bad precision argument', format: '%.*d', args: [str('x'), int(1)], want: '%!(BADPREC)1' },
  ])('$name', ({ format, args, want }) => {
    expect(goSprintf(format, args)).toBe(want);
  });
});

describe('strconv quoting', () => {
  it('escapes quotes and keeps printable runes', () => {
    expect(quote('a"é\n')).toBe('"a\\"é\\n"');
    expect(quoteToASCII('é')).toBe('"\\u00e9"');
  });
});

describe('strconv.FormatFloat port', () => {
  it.each([
    { name: 'prints exact digits for large %f', v: 1e23, fmt: 'f' as const, prec: 0, want: '99999999999999991611392' },
    { name: 'prints zero with an exponent of zero', v: 0, fmt: 'e' as const, prec: 2, want: '0.00e+00' },
    { name: 'rounds up through nines', v: 9.999, fmt: 'f' as const, prec: 2, want: '10.00' },
    { name: 'prints shortest %e', v: 123456, fmt: 'e' as const, prec: -1, want: '1.23456e+05' },
    { name: 'prints three-digit exponents', v: 1e-300, fmt: 'e' as const, prec: 0, want: '1e-300' },
    { name: 'prints infinities with a sign', v: -Infinity, fmt: 'g' as const, prec: -1, want: '-Inf' },
  ])('$name', ({ v, fmt, prec, want }) => {
    expect(formatFloat(v, fmt, prec)).toBe(want);
  });

  it('agrees with JS toFixed wherever the value is not a decimal tie', () => {
    for (const v of [0.1, 2 / 3, 123.456, 1e-5, 98765.4321]) {
      for (const p of [0, 1, 3, 6]) expect(formatFloat(v, 'f', p)).toBe(v.toFixed(p));
    }
  });
});

describe('goSprintf argument kinds', () => {
  it('treats values beyond int64 as big integers', () => {
    expect(goSprintf('%v', [{ t: 'big', v: -(2n ** 70n) }])).toBe('-1180591620717411303424');
  });
});
