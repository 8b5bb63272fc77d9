/**
 * Go's fmt.Sprintf for the argument types OPA hands it: int, *big.Int, float64 and string
 * (see sprintf.ts for how Rego values become these). This file walks the format — flags, width,
 * precision, argument indexes, `%!(NOVERB)`, `%!v(MISSING)`, `%!(EXTRA …)` — as fmt/print.go's
 * doPrintf does; sprintf-printer.ts formats each argument.
 */
import { Printer, TYPE_NAME, type GoArg } from './sprintf-printer.js';

export type { GoArg } from './sprintf-printer.js';

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
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let reordered = false;
  let goodArgNum = true;

  // `[n]` argument index at i; returns the new argNum, position and whether an index was found.
  const argNumber = (cur: number, i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [cur, i, false];
    reordered = true;
    if (end - i < 3) {
      goodArgNum = false;
      return [cur, i + 1, false];
    }
    for (let j = i + 1; j < end; j++) {
      if (format[j] === ']') {
        const { num, ok, next } = parseNum(format, i + 1, j);
        if (!ok || next !== j) {
          goodArgNum = false;
          return [cur, j + 1, false];
        }
        const index = num - 1;
        if (index >= 0 && index < args.length) return [index, j + 1, true];
        goodArgNum = false;
        return [cur, j + 1, true];
      }
    }
    goodArgNum = false;
    return [cur, i + 1, false];
  };

  // An int argument for '*' width or precision.
  const intFromArg = (): { num: number; ok: boolean } => {
    if (argNum >= args.length) return { num: 0, ok: false };
    const a = args[argNum++]!;
    if (a.t !== 'int' || a.v > BigInt(TOO_LARGE) || a.v < -BigInt(TOO_LARGE)) return { num: 0, ok: false };
    return { num: Number(a.v), ok: true };
  };

  let i = 0;
  formatLoop: while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.out += format.slice(lasti, i);
    if (i >= end) break;
    i++; // skip '%'
    p.f = Printer.cleared();
    const f = p.f;
    simple: for (; i < end; i++) {
      const c = format[i]!;
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
          // Fast path: a lower-case verb right after the flags.
          if (c >= 'a' && c <= 'z' && argNum < args.length) {
            if (c === 'v') {
              f.sharpV = f.sharp;
              f.sharp = false;
              f.plusV = f.plus;
              f.plus = false;
            }
            p.printArg(args[argNum]!, c);
            argNum++;
            i++;
            continue formatLoop;
          }
          break simple;
      }
    }

    let afterIndex: boolean;
    [argNum, i, afterIndex] = argNumber(argNum, i);

    if (i < end && format[i] === '*') {
      i++;
      const w = intFromArg();
      f.wid = w.num;
      f.widPresent = w.ok;
      if (!w.ok) p.out += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      const w = parseNum(format, i, end);
      f.wid = w.num;
      f.widPresent = w.ok;
      i = w.next;
      if (afterIndex && f.widPresent) goodArgNum = false;
    }

    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      [argNum, i, afterIndex] = argNumber(argNum, i);
      if (i < end && format[i] === '*') {
        i++;
        const pr = intFromArg();
        f.prec = pr.num;
        f.precPresent = pr.ok;
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.out += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const pr = parseNum(format, i, end);
        f.prec = pr.ok ? pr.num : 0;
        f.precPresent = true;
        i = pr.next;
      }
    }

    if (!afterIndex) [argNum, i, afterIndex] = argNumber(argNum, i);

    if (i >= end) {
      p.out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;

    if (verb === '%') p.out += '%';
    else if (!goodArgNum) p.out += `%!${verb}(BADINDEX)`;
    else if (argNum >= args.length) p.out += `%!${verb}(MISSING)`;
    else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(args[argNum]!, verb);
      argNum++;
    }
  }

  if (!reordered && argNum < args.length) {
    p.f = Printer.cleared();
    p.out += '%!(EXTRA ';
    args.slice(argNum).forEach((a, k) => {
      if (k > 0) p.out += ', ';
      p.out += `${TYPE_NAME[a.t]}=`;
      p.printArg(a, 'v');
    });
    p.out += ')';
  }
  return p.out;
}
