/**
 * Go's fmt.Sprintf for the argument types OPA hands it: int, *big.Int, float64 and string (see
 * rego/builtins/strings/sprintf.ts for how Rego values become these). This file walks the format —
 * flags, width, precision, argument indexes, `%!(NOVERB)`, `%!v(MISSING)`, `%!(EXTRA …)` — as
 * fmt/print.go's doPrintf does; printer.ts formats each argument.
 */
import { Printer, TYPE_NAME, type GoArg } from './printer.js';

export type { GoArg } from './printer.js';

// Go's fmt refuses widths, precisions and argument indexes beyond a million.
const TOO_LARGE = 1_000_000;

/** Go's parsenum: digits from i; fails on overflow past a million. */
function parseNum(s: string, start: number, end: number): { num: number; ok: boolean; next: number } {
  if (start >= end) return { num: 0, ok: false, next: end };
  let num = 0;
  let ok = false;
  let i = start;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (num > TOO_LARGE) return { num: 0, ok: false, next: end };
    num = num * 10 + (c - 48);
    ok = true;
  }
  return { num, ok, next: i };
}

/** fmt.Sprintf(format, args...) */
export function goSprintf(format: string, args: readonly GoArg[]): string {
  return new DoPrintf(format, args).run();
}

/** One run of fmt's doPrintf: the format is walked once, left to right, from `i`. */
class DoPrintf {
  private readonly p = new Printer();
  private readonly end: number;
  private i = 0;
  private argNum = 0;
  private reordered = false;
  private goodArgNum = true;

  constructor(
    private readonly format: string,
    private readonly args: readonly GoArg[],
  ) {
    this.end = format.length;
  }

  run(): string {
    const { p } = this;
    while (this.i < this.end) {
      this.goodArgNum = true;
      const lasti = this.i;
      while (this.i < this.end && this.format[this.i] !== '%') this.i++;
      if (this.i > lasti) p.out += this.format.slice(lasti, this.i);
      if (this.i >= this.end) break;
      this.i++; // skip '%'
      p.f = Printer.cleared();
      if (this.flags()) continue;
      let afterIndex = this.argNumber();
      afterIndex = this.width(afterIndex);
      afterIndex = this.precision(afterIndex);
      if (!afterIndex) this.argNumber();
      if (this.i >= this.end) {
        p.out += '%!(NOVERB)';
        break;
      }
      this.verb();
    }
    if (!this.reordered && this.argNum < this.args.length) this.extra();
    return p.out;
  }

  /** The flags after `%`; true when a lower-case verb right after them was printed (fmt's fast path). */
  private flags(): boolean {
    const f = this.p.f;
    for (; this.i < this.end; this.i++) {
      const c = this.format[this.i]!;
      switch (c) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = !f.minus;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          f.zero = false;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          if (c >= 'a' && c <= 'z' && this.argNum < this.args.length) {
            this.printArg(c);
            this.i++;
            return true;
          }
          return false;
      }
    }
    return false;
  }

  /** A `[n]` argument index at i: moves argNum and i; true when an index was found. */
  private argNumber(): boolean {
    const { format, end, i } = this;
    if (i >= end || format[i] !== '[') return false;
    this.reordered = true;
    if (end - i < 3) {
      this.goodArgNum = false;
      this.i = i + 1;
      return false;
    }
    for (let j = i + 1; j < end; j++) {
      if (format[j] !== ']') continue;
      const { num, ok, next } = parseNum(format, i + 1, j);
      this.i = j + 1;
      if (!ok || next !== j) {
        this.goodArgNum = false;
        return false;
      }
      const index = num - 1;
      if (index >= 0 && index < this.args.length) this.argNum = index;
      else this.goodArgNum = false;
      return true;
    }
    this.goodArgNum = false;
    this.i = i + 1;
    return false;
  }

  /** An int argument for '*' width or precision. */
  private intFromArg(): { num: number; ok: boolean } {
    if (this.argNum >= this.args.length) return { num: 0, ok: false };
    const a = this.args[this.argNum++]!;
    if (a.t !== 'int' || a.v > BigInt(TOO_LARGE) || a.v < -BigInt(TOO_LARGE)) return { num: 0, ok: false };
    return { num: Number(a.v), ok: true };
  }

  /** The width, given or `*`; returns whether an argument index still applies. */
  private width(afterIndex: boolean): boolean {
    const f = this.p.f;
    if (this.i < this.end && this.format[this.i] === '*') {
      this.i++;
      const w = this.intFromArg();
      f.wid = w.num;
      f.widPresent = w.ok;
      if (!w.ok) this.p.out += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      return false;
    }
    const w = parseNum(this.format, this.i, this.end);
    f.wid = w.num;
    f.widPresent = w.ok;
    this.i = w.next;
    if (afterIndex && f.widPresent) this.goodArgNum = false;
    return afterIndex;
  }

  /** The precision after `.`, given or `*`; returns whether an argument index still applies. */
  private precision(afterIndex: boolean): boolean {
    if (!(this.i + 1 < this.end && this.format[this.i] === '.')) return afterIndex;
    const f = this.p.f;
    this.i++;
    if (afterIndex) this.goodArgNum = false;
    const indexed = this.argNumber();
    if (this.i < this.end && this.format[this.i] === '*') {
      this.i++;
      const pr = this.intFromArg();
      f.prec = pr.num;
      f.precPresent = pr.ok;
      if (f.prec < 0) {
        f.prec = 0;
        f.precPresent = false;
      }
      if (!f.precPresent) this.p.out += '%!(BADPREC)';
      return false;
    }
    const pr = parseNum(this.format, this.i, this.end);
    f.prec = pr.ok ? pr.num : 0;
    f.precPresent = true;
    this.i = pr.next;
    return indexed;
  }

  /** The verb at i, applied to the current argument (or `%%`, or one of fmt's error forms). */
  private verb(): void {
    const verb = String.fromCodePoint(this.format.codePointAt(this.i)!);
    this.i += verb.length;
    if (verb === '%') this.p.out += '%';
    else if (!this.goodArgNum) this.p.out += `%!${verb}(BADINDEX)`;
    else if (this.argNum >= this.args.length) this.p.out += `%!${verb}(MISSING)`;
    else this.printArg(verb);
  }

  /** Prints the current argument for `verb` and moves on; `%v` takes `#` and `+` as its own flags. */
  private printArg(verb: string): void {
    const f = this.p.f;
    if (verb === 'v') {
      f.sharpV = f.sharp;
      f.sharp = false;
      f.plusV = f.plus;
      f.plus = false;
    }
    this.p.printArg(this.args[this.argNum]!, verb);
    this.argNum++;
  }

  /** `%!(EXTRA type=value, …)` for arguments the format did not use. */
  private extra(): void {
    const { p } = this;
    p.f = Printer.cleared();
    p.out += '%!(EXTRA ';
    this.args.slice(this.argNum).forEach((a, k) => {
      if (k > 0) p.out += ', ';
      p.out += `${TYPE_NAME[a.t]}=`;
      p.printArg(a, 'v');
    });
    p.out += ')';
  }
}
