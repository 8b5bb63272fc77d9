import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OperandError } from '../../errors.js';
import { RObject, RSet, type Value } from '../../value.js';
import { goSprintf } from '../../lib/gofmt/index.js';
import { regoSprintf, register, toGoArg } from './sprintf.js';
import { BuiltinRegistry } from '../registry.js';

interface Case {
  name: string;
  format: string;
  args: Value[];
  want: string;
}

const obj = (entries: [Value, Value][]): RObject => RObject.from(entries);

// Expected texts are Go's fmt.Sprintf output for the arguments OPA builds.
const cases: Case[] = [
  { name: 'prints a string with %s', format: 'hi %s', args: ['there'], want: 'hi there' },
  { name: 'pads hex bytes with %02X', format: 'hi %02X.%02X', args: [127, 1], want: 'hi 7F.01' },
  { name: 'rounds floats with %.2f', format: 'hi %.2f', args: [3.1415], want: 'hi 3.14' },
  { name: 'prints booleans as Rego text strings', format: 'hi %s', args: [true], want: 'hi true' },
  {
    name: 'prints arrays as Rego terms with %v',
    format: 'hi %v',
    args: [['there', 5, 3.14]],
    want: 'hi ["there", 5, 3.14]',
  },
  {
    name: 'prints objects with sorted keys',
    format: '%v',
    args: [
      obj([
        ['b', 1],
        ['a', [null]],
      ]),
    ],
    want: '{"a": [null], "b": 1}',
  },
  { name: 'prints empty sets as set()', format: '%v', args: [RSet.from([])], want: 'set()' },
  { name: 'prints sets in sorted order', format: '%v', args: [RSet.from([3, 1, 'x'])], want: '{1, 3, "x"}' },
  {
    name: 'prints big integers exactly with %s',
    format: '%s',
    args: [123456789123456789123n],
    want: '123456789123456789123',
  },
  {
    name: 'prints big integers with %d and width',
    format: '%30d|',
    args: [1208925819614629174706175n],
    want: '     1208925819614629174706175|',
  },
  {
    name: 'reports a bad verb for a big integer',
    format: '%f',
    args: [10n ** 30n],
    want: '%!f(big.Int=1000000000000000000000000000000)',
  },
  { name: 'reports a wrong type with the Go type name', format: '%d', args: ['x'], want: '%!d(string=x)' },
  { name: 'reports a wrong verb for booleans as strings', format: '%t', args: [true], want: '%!t(string=true)' },
  { name: 'reports a float given to %d', format: '%d', args: [1.5], want: '%!d(float64=1.5)' },
  { name: 'keeps flags inside the bad-verb text', format: '%5t|', args: [1], want: '%!t(int=    1)|' },
  { name: 'reports missing arguments', format: '%d %d', args: [1], want: '1 %!d(MISSING)' },
  { name: 'reports extra arguments', format: '%d', args: [1, 'a'], want: '1%!(EXTRA string=a)' },
  { name: 'reports a missing verb', format: 'x%', args: [], want: 'x%!(NOVERB)' },
  { name: 'prints %% without consuming arguments', format: '%d%%', args: [50], want: '50%' },
  { name: 'uses explicit argument indexes', format: '%[2]d %[1]d', args: [1, 2], want: '2 1' },
  { name: 'reports a bad argument index', format: '%[3]d', args: [1], want: '%!d(BADINDEX)' },
  { name: 'takes width from an argument with *', format: '%*d', args: [5, 42], want: '   42' },
  { name: 'takes precision from an argument with .*', format: '%.*f', args: [2, 3.14159], want: '3.14' },
  { name: 'reports a non-integer width argument', format: '%*d', args: ['x', 1], want: '%!(BADWIDTH)1' },
  { name: 'left-justifies with -', format: '%-6d|', args: [42], want: '42    |' },
  { name: 'zero-pads after the sign', format: '%05d', args: [-42], want: '-0042' },
  { name: 'prints a plus sign with +', format: '%+d', args: [5], want: '+5' },
  { name: 'prints a space for positive numbers with space', format: '% d', args: [5], want: ' 5' },
  { name: 'uses precision as minimum digits for integers', format: '%6.3d', args: [7], want: '   007' },
  { name: 'prints nothing for zero with precision 0', format: '%.0d|%3.0d|', args: [0, 0], want: '|   |' },
  {
    name: 'prints binary, octal and hex',
    format: '%b %o %O %x %X',
    args: [10, 8, 8, 255, 255],
    want: '1010 10 0o10 ff FF',
  },
  { name: 'adds prefixes with #', format: '%#b %#o %#x %#X', args: [5, 8, 255, 255], want: '0b101 010 0xff 0XFF' },
  { name: 'prints negative numbers in other bases with a sign', format: '%x %o', args: [-255, -8], want: '-ff -10' },
  {
    name: 'prints characters and quoted runes',
    format: '%c %q %U %#U',
    args: [65, 0x263a, 0x1f600, 65],
    want: "A '☺' U+1F600 U+0041 'A'",
  },
  {
    name: 'prints the hex bytes of a string',
    format: '%x % X %#x',
    args: ['hi', 'hi', 'é'],
    want: '6869 68 69 0xc3a9',
  },
  {
    name: 'quotes strings with %q and %+q',
    format: '%q %+q %#q',
    args: ['hi\n', '☺', 'ab'],
    want: '"hi\\n" "\\u263a" `ab`',
  },
  {
    name: 'truncates strings to the precision in runes',
    format: '%.2s|%5.1s|',
    args: ['añb', 'abc'],
    want: 'añ|    a|',
  },
  { name: 'pads strings by runes, not bytes', format: '%-4s|', args: ['ñ'], want: 'ñ   |' },
  {
    name: 'prints the Go type with %T',
    format: '%T %T %T %T',
    args: ['a', 1, 1.5, 10n ** 20n],
    want: 'string int float64 *big.Int',
  },
  {
    name: 'uses shortest %g for %v of floats',
    format: '%v %v %v',
    args: [1.5, 1234567.5, 0.000012],
    want: '1.5 1.2345675e+06 1.2e-05',
  },
  { name: 'formats %e and %E', format: '%e %.3E', args: [1234.5678, 0.25], want: '1.234568e+03 2.500E-01' },
  {
    name: 'rounds half to even on the exact binary value',
    format: '%.0f %.0f %.0f %.2f %.2f',
    args: [0.5, 1.5, 2.5, 0.125, 0.375],
    want: '0 2 2 0.12 0.38',
  },
  {
    name: 'formats %g with precision',
    format: '%.3g %g %G',
    args: [3.14159, 1e-7, 1.5e-300],
    want: '3.14 1e-07 1.5E-300',
  },
  { name: 'keeps the decimal point and zeros with #', format: '%#g %#.0f', args: [1.5, 2.5], want: '1.50000 2.' },
  { name: 'zero-pads floats after the sign', format: '%08.3f', args: [-3.14159], want: '-003.142' },
  {
    name: 'prints hex floats',
    format: '%x %X %.3x',
    args: [1.5, 0.1, 1 / 3],
    want: '0x1.8p+00 0X1.999999999999AP-04 0x1.555p-02',
  },
  { name: 'prints binary floats with %b', format: '%b', args: [1.5], want: '6755399441055744p-52' },
  { name: 'passes non-ASCII text through unchanged', format: 'ünïcødé %s', args: ['✓'], want: 'ünïcødé ✓' },
];

describe('sprintf (Go fmt semantics)', () => {
  it.each(cases)('$name', ({ format, args, want }) => {
    expect(regoSprintf(format, args)).toBe(want);
  });

  it('rejects a non-array second operand with a type error', () => {
    const r = new BuiltinRegistry();
    register(r);
    const ctx = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };
    expect(() => r.get('sprintf')!.impl(['%s', 'x'], ctx)).toThrow(OperandError);
    expect(() => r.get('sprintf')!.impl(['%s', 'x'], ctx)).toThrow('operand 2 must be array but got string');
  });
});

describe('sprintf fast path', () => {
  const piece = fc.oneof(
    fc.constantFrom('%s', '%v', '%d', '%%', '%', '%5s', '%x', '%[1]s', 'a', ' ', 'é', '\u{1F600}'),
    fc.string({ maxLength: 3 }),
  );
  const value = fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
    fc.boolean(),
    fc.constant(null),
    fc.constant(2n ** 60n),
    fc.constant(Number.MAX_SAFE_INTEGER),
  );
  it('formats exactly as Go’s printer for every format and argument list', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(value, { maxLength: 4 }), (pieces, values) => {
        const format = pieces.join('');
        expect(regoSprintf(format, values as Value[])).toBe(goSprintf(format, (values as Value[]).map(toGoArg)));
      }),
      { numRuns: 3000 },
    );
  });
});
