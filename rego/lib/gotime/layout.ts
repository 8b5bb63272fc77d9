/**
 * Go's reference-time layouts ("Mon Jan 2 15:04:05 MST 2006"): the named layouts OPA accepts and
 * the chunk scanner shared by parsing and formatting.
 */

export type StdCode =
  | 'longMonth'
  | 'month'
  | 'numMonth'
  | 'zeroMonth'
  | 'longWeekDay'
  | 'weekDay'
  | 'day'
  | 'underDay'
  | 'zeroDay'
  | 'underYearDay'
  | 'zeroYearDay'
  | 'hour'
  | 'hour12'
  | 'zeroHour12'
  | 'minute'
  | 'zeroMinute'
  | 'second'
  | 'zeroSecond'
  | 'longYear'
  | 'year'
  | 'PM'
  | 'pm'
  | 'TZ'
  | 'ISO8601TZ'
  | 'ISO8601SecondsTZ'
  | 'ISO8601ShortTZ'
  | 'ISO8601ColonTZ'
  | 'ISO8601ColonSecondsTZ'
  | 'NumTZ'
  | 'NumSecondsTz'
  | 'NumShortTZ'
  | 'NumColonTZ'
  | 'NumColonSecondsTZ'
  | 'fracSecond0'
  | 'fracSecond9';

export interface Std {
  readonly code: StdCode;
  /** Digits of a fractional-second element. */
  readonly digits?: number;
  /** '.' or ',' before a fractional second. */
  readonly sep?: string;
}

export interface Chunk {
  readonly prefix: string;
  /** undefined: no more elements, `prefix` is the rest of the layout. */
  readonly std: Std | undefined;
  readonly suffix: string;
}

/** Go's named layouts that OPA accepts in place of a layout string. */
export const NAMED_LAYOUTS: Readonly<Record<string, string>> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
};

export function resolveLayout(layout: string): string {
  return Object.hasOwn(NAMED_LAYOUTS, layout) ? NAMED_LAYOUTS[layout]! : layout;
}

const STD_0X: readonly StdCode[] = ['zeroMonth', 'zeroDay', 'zeroHour12', 'zeroMinute', 'zeroSecond', 'year'];

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function startsWithLower(s: string): boolean {
  const c = s.charCodeAt(0);
  return c >= 97 && c <= 122;
}

const TZ_FORMS: readonly (readonly [string, StdCode])[] = [
  ['070000', 'NumSecondsTz'],
  ['07:00:00', 'NumColonSecondsTZ'],
  ['0700', 'NumTZ'],
  ['07:00', 'NumColonTZ'],
  ['07', 'NumShortTZ'],
];

const ISO_OF: Partial<Record<StdCode, StdCode>> = {
  NumSecondsTz: 'ISO8601SecondsTZ',
  NumColonSecondsTZ: 'ISO8601ColonSecondsTZ',
  NumTZ: 'ISO8601TZ',
  NumColonTZ: 'ISO8601ColonTZ',
  NumShortTZ: 'ISO8601ShortTZ',
};

/** Go's nextStdChunk: the text before the first layout element, the element, and the rest. */
export function nextStdChunk(layout: string): Chunk {
  const at = (i: number, n: number, code: StdCode, extra?: Partial<Std>): Chunk => ({
    prefix: layout.slice(0, i),
    std: { code, ...extra },
    suffix: layout.slice(i + n),
  });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i]!;
    const rest = layout.slice(i);
    switch (c) {
      case 'J':
        if (rest.startsWith('Jan')) {
          if (rest.startsWith('January')) return at(i, 7, 'longMonth');
          if (!startsWithLower(rest.slice(3))) return at(i, 3, 'month');
        }
        break;
      case 'M':
        if (rest.startsWith('Mon')) {
          if (rest.startsWith('Monday')) return at(i, 6, 'longWeekDay');
          if (!startsWithLower(rest.slice(3))) return at(i, 3, 'weekDay');
        }
        if (rest.startsWith('MST')) return at(i, 3, 'TZ');
        break;
      case '0': {
        const d = layout.charCodeAt(i + 1);
        if (d >= 49 && d <= 54) return at(i, 2, STD_0X[d - 49]!);
        if (rest.startsWith('002')) return at(i, 3, 'zeroYearDay');
        break;
      }
      case '1':
        if (layout[i + 1] === '5') return at(i, 2, 'hour');
        return at(i, 1, 'numMonth');
      case '2':
        if (rest.startsWith('2006')) return at(i, 4, 'longYear');
        return at(i, 1, 'day');
      case '_':
        if (layout[i + 1] === '2') {
          // "_2006" is a literal underscore followed by the long year.
          if (rest.startsWith('_2006'))
            return { prefix: layout.slice(0, i + 1), std: { code: 'longYear' }, suffix: layout.slice(i + 5) };
          return at(i, 2, 'underDay');
        }
        if (rest.startsWith('__2')) return at(i, 3, 'underYearDay');
        break;
      case '3':
        return at(i, 1, 'hour12');
      case '4':
        return at(i, 1, 'minute');
      case '5':
        return at(i, 1, 'second');
      case 'P':
        if (layout[i + 1] === 'M') return at(i, 2, 'PM');
        break;
      case 'p':
        if (layout[i + 1] === 'm') return at(i, 2, 'pm');
        break;
      case '-':
      case 'Z':
        for (const [form, code] of TZ_FORMS) {
          if (rest.startsWith(form, 1)) return at(i, 1 + form.length, c === 'Z' ? ISO_OF[code]! : code);
        }
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          // Only a fractional second if the run of identical digits ends here.
          if (!isDigitAt(layout, j)) {
            return {
              prefix: layout.slice(0, i),
              std: { code: ch === '0' ? 'fracSecond0' : 'fracSecond9', digits: j - (i + 1), sep: c },
              suffix: layout.slice(j),
            };
          }
        }
        break;
      }
    }
  }
  return { prefix: layout, std: undefined, suffix: '' };
}
