/**
 * The per-argument half of Go's fmt: flags, width and precision applied to an int, *big.Int,
 * float64 or string for one verb (fmt/format.go and fmt/print.go), including the bad-verb form.
 */
import { formatBigInt } from './bigint.js';
import { formatFloat, type FloatFormat } from './format-float.js';
import { canBackquote, isPrint, quote, quoteRune, quoteToASCII } from './quote.js';

export type GoArg =
  | { readonly t: 'int'; readonly v: bigint } // Go `int` (64-bit)
  | { readonly t: 'big'; readonly v: bigint } // *big.Int
  | { readonly t: 'float'; readonly v: number } // float64
  | { readonly t: 'string'; readonly v: string };

export const TYPE_NAME = { int: 'int', big: '*big.Int', float: 'float64', string: 'string' } as const;
const TWO64 = 1n << 64n;

export interface Flags {
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++;
    else {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      n++;
    }
  }
  return n;
}

export class Printer {
  out = '';
  f: Flags = Printer.cleared();

  static cleared(): Flags {
    return {
      wid: 0,
      widPresent: false,
      prec: 0,
      precPresent: false,
      minus: false,
      plus: false,
      sharp: false,
      space: false,
      zero: false,
      plusV: false,
      sharpV: false,
    };
  }

  padding(n: number, zero = this.f.zero): string {
    return n > 0 ? (zero ? '0' : ' ').repeat(n) : '';
  }

  /** Appends s padded to the width (in runes) on the left, or on the right with '-'. */
  pad(s: string, zero = this.f.zero): void {
    const f = this.f;
    if (!f.widPresent || f.wid === 0) {
      this.out += s;
      return;
    }
    const fill = this.padding(f.wid - runeCount(s), zero);
    this.out += f.minus ? s + fill : fill + s;
  }

  truncate(s: string): string {
    if (!this.f.precPresent) return s;
    let n = this.f.prec;
    let i = 0;
    for (const ch of s) {
      if (--n < 0) return s.slice(0, i);
      i += ch.length;
    }
    return s;
  }

  fmtInteger(v: bigint, base: number, verb: string, upper: boolean): void {
    const f = this.f;
    const negative = v < 0n;
    const u = negative ? -v : v;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      // Precision 0 and value 0 print nothing but the padding.
      if (prec === 0 && u === 0n) {
        this.out += this.padding(f.wid, false);
        return;
      }
    } else if (f.zero && !f.minus && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let digits = u.toString(base);
    if (upper) digits = digits.toUpperCase();
    if (digits.length < prec) digits = '0'.repeat(prec - digits.length) + digits;
    if (f.sharp) {
      if (base === 2) digits = `0b${digits}`;
      else if (base === 8 && digits[0] !== '0') digits = `0${digits}`;
      else if (base === 16) digits = (upper ? '0X' : '0x') + digits;
    }
    if (verb === 'O') digits = `0o${digits}`;
    if (negative) digits = `-${digits}`;
    else if (f.plus) digits = `+${digits}`;
    else if (f.space) digits = ` ${digits}`;
    this.pad(digits, false);
  }

  fmtUnicode(v: bigint): void {
    const u = v < 0n ? v + TWO64 : v;
    const prec = this.f.precPresent && this.f.prec > 4 ? this.f.prec : 4;
    let s = `U+${u.toString(16).toUpperCase().padStart(prec, '0')}`;
    if (this.f.sharp && u <= 0x10ffffn && isPrint(Number(u))) s += ` '${String.fromCodePoint(Number(u))}'`;
    this.pad(s, false);
  }

  /** A rune from an int; out-of-range values (and surrogates) become U+FFFD as in Go. */
  static rune(v: bigint): number {
    if (v < 0n || v > 0x10ffffn) return 0xfffd;
    const r = Number(v);
    return r >= 0xd800 && r < 0xe000 ? 0xfffd : r;
  }

  printInt(v: bigint, verb: string): void {
    switch (verb) {
      case 'v':
      case 'd':
        return this.fmtInteger(v, 10, verb, false);
      case 'b':
        return this.fmtInteger(v, 2, verb, false);
      case 'o':
      case 'O':
        return this.fmtInteger(v, 8, verb, false);
      case 'x':
        return this.fmtInteger(v, 16, verb, false);
      case 'X':
        return this.fmtInteger(v, 16, verb, true);
      case 'c':
        return this.pad(String.fromCodePoint(Printer.rune(v)));
      case 'q':
        return this.pad(quoteRune(Printer.rune(v), this.f.plus));
      case 'U':
        return this.fmtUnicode(v);
      default:
        return this.badVerb({ t: 'int', v }, verb);
    }
  }

  /** big.Int's own Format method: it handles every verb itself. */
  printBig(x: bigint, verb: string): void {
    this.out += formatBigInt(x, verb, this.f);
  }

  printFloat(v: number, verb: string): void {
    let fmt: FloatFormat;
    let prec: number;
    switch (verb) {
      case 'v':
        fmt = 'g';
        prec = -1;
        break;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        fmt = verb;
        prec = -1;
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
        fmt = verb === 'F' ? 'f' : verb;
        prec = 6;
        break;
      default:
        return this.badVerb({ t: 'float', v }, verb);
    }
    this.fmtFloat(v, fmt, prec);
  }

  fmtFloat(v: number, fmt: FloatFormat, defPrec: number): void {
    const f = this.f;
    const prec = f.precPresent ? f.prec : defPrec;
    let num = formatFloat(v, fmt, prec);
    if (num[0] !== '-' && num[0] !== '+') num = `+${num}`;
    if (f.space && num[0] === '+' && !f.plus) num = ` ${num.slice(1)}`;
    // Infinities and NaN are padded with spaces, never zeros.
    if (num[1] === 'I' || num[1] === 'N') {
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.pad(num, false);
      return;
    }
    // '#' keeps the decimal point, and for %g the trailing zeros up to the precision.
    if (f.sharp && fmt !== 'b') {
      let digits = 0;
      if (fmt === 'g' || fmt === 'G' || fmt === 'x') digits = prec === -1 ? 6 : prec;
      let tail = '';
      let body = num;
      let hasPoint = false;
      let sawNonzero = false;
      for (let i = 1; i < body.length; i++) {
        const c = body[i]!;
        if (c === '.') hasPoint = true;
        else if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && fmt !== 'x' && fmt !== 'X')) {
          tail = body.slice(i);
          body = body.slice(0, i);
          break;
        } else {
          if (c !== '0') sawNonzero = true;
          if (sawNonzero) digits--;
        }
      }
      if (!hasPoint) {
        if (body.length === 2 && body[1] === '0') digits--;
        body += '.';
      }
      if (digits > 0) body += '0'.repeat(digits);
      num = body + tail;
    }
    if (f.plus || num[0] !== '+') {
      // Zero padding goes between the sign and the digits.
      if (f.zero && !f.minus && f.widPresent && f.wid > num.length) {
        this.out += num[0] + '0'.repeat(f.wid - num.length) + num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  printString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.f.sharpV) return this.fmtQ(s);
        return this.pad(this.truncate(s));
      case 's':
        return this.pad(this.truncate(s));
      case 'x':
      case 'X':
        return this.fmtSx(s, verb === 'X');
      case 'q':
        return this.fmtQ(s);
      default:
        return this.badVerb({ t: 'string', v: s }, verb);
    }
  }

  fmtQ(s: string): void {
    const t = this.truncate(s);
    if (this.f.sharp && canBackquote(t)) return this.pad(`\`${t}\``);
    this.pad(this.f.plus ? quoteToASCII(t) : quote(t));
  }

  /** Hex of the string's UTF-8 bytes; ' ' separates bytes, '#' adds 0x. */
  fmtSx(s: string, upper: boolean): void {
    const f = this.f;
    let bytes = new TextEncoder().encode(s);
    if (f.precPresent && f.prec < bytes.length) bytes = bytes.subarray(0, f.prec);
    const n = bytes.length;
    if (n === 0) {
      if (f.widPresent) this.out += this.padding(f.wid);
      return;
    }
    const px = upper ? '0X' : '0x';
    let body = f.sharp ? px : '';
    for (let i = 0; i < n; i++) {
      if (f.space && i > 0) body += f.sharp ? ` ${px}` : ' ';
      const h = bytes[i]!.toString(16).padStart(2, '0');
      body += upper ? h.toUpperCase() : h;
    }
    const fill = f.widPresent && f.wid > body.length ? this.padding(f.wid - body.length) : '';
    this.out += f.minus ? body + fill : fill + body;
  }

  printArg(a: GoArg, verb: string): void {
    if (verb === 'T') return this.pad(this.truncate(TYPE_NAME[a.t]));
    if (verb === 'p') return this.badVerb(a, verb);
    switch (a.t) {
      case 'int':
        return this.printInt(a.v, verb);
      case 'big':
        return this.printBig(a.v, verb);
      case 'float':
        return this.printFloat(a.v, verb);
      case 'string':
        return this.printString(a.v, verb);
    }
  }

  badVerb(a: GoArg, verb: string): void {
    this.out += `%!${verb}(${TYPE_NAME[a.t]}=`;
    this.printArg(a, 'v');
    this.out += ')';
  }
}
