/**
 * fmt verbs on a *big.Int: Go's big.Int implements fmt.Formatter, so it formats every verb itself
 * (decimal for %d %s %v, %b %o %O %x %X with sign, '#' prefixes, precision and width padding) and
 * answers unknown verbs with `%!c(big.Int=…)` rather than fmt's usual bad-verb form.
 */
import type { Flags } from './printer.js';

export function formatBigInt(x: bigint, verb: string, f: Readonly<Flags>): string {
  let base: number;
  switch (verb) {
    case 'b':
      base = 2;
      break;
    case 'o':
    case 'O':
      base = 8;
      break;
    case 'd':
    case 's':
    case 'v':
      base = 10;
      break;
    case 'x':
    case 'X':
      base = 16;
      break;
    default:
      return `%!${verb}(big.Int=${x.toString()})`;
  }
  const plus = f.plus || f.plusV;
  const sharp = f.sharp || f.sharpV;
  const sign = x < 0n ? '-' : plus ? '+' : f.space ? ' ' : '';
  let prefix = '';
  if (sharp) prefix = verb === 'b' ? '0b' : verb === 'o' ? '0' : verb === 'x' ? '0x' : verb === 'X' ? '0X' : '';
  if (verb === 'O') prefix = '0o';
  let digits = (x < 0n ? -x : x).toString(base);
  if (verb === 'X') digits = digits.toUpperCase();
  let zeros = 0;
  if (f.precPresent) {
    if (digits.length < f.prec) zeros = f.prec - digits.length;
    else if (digits === '0' && f.prec === 0) return '';
  }
  let left = 0;
  let right = 0;
  const length = sign.length + prefix.length + zeros + digits.length;
  if (f.widPresent && length < f.wid) {
    const d = f.wid - length;
    if (f.minus) right = d;
    else if (f.zero && !f.precPresent) zeros = d;
    else left = d;
  }
  return ' '.repeat(left) + sign + prefix + '0'.repeat(zeros) + digits + ' '.repeat(right);
}
