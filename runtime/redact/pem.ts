/**
 * PEM private-key blocks (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK, plain PRIVATE KEY) of any length, found
 * header first. Mirrors the "private key" finding of config/policies/secrets.yaml, which uses the same grammar.
 *
 * A block is a header, a body shaped like a key's and, usually, a footer. The body is lines (a JSON-escaped `\n` is
 * a line break too) of base64, up to four encryption or armor header fields first (`Proc-Type:`, `DEK-Info:`,
 * `Version:` …), blank lines, and `...` where a key was cut — or that body flattened onto the header's line, as
 * space-separated runs of base64 beginning with one of 16 or more characters. A body may be empty or one short line.
 * Prose between a header and a footer ("starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE
 * KEY-----") is no body. Without a footer, the block needs key material: the first line after the header and its
 * fields is a base64 run of 16 or more characters; the span then runs to the last base64 line (at most
 * PEM_MAX_CHARS from the header).
 *
 * NB: V8 backtracks. Each part below can match a piece of text in one way only (tokens and blanks draw on disjoint
 * characters, fields come before the first base64 line and are at most four), so a failed attempt costs the length
 * it read, and an attempt never reads past a line that is not body: a text costs time linear in its length.
 */

const KIND = String.raw`(?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----`;
/** a line break, written or JSON-escaped */
const NL = String.raw`(?:\r?\n|\\r\\n|\\n)`;
const BLANK = String.raw`[ \t]`;
const FIELD = String.raw`(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):[^\r\n\\]*`;
const FIELDS = `(?:${NL}${BLANK}*${FIELD}){0,4}`;
/** one line of a body: base64 (padding anywhere: an armor checksum begins with `=`), or the mark of a cut */
const TOKEN = String.raw`(?:[A-Za-z0-9+/=]+(?:\.{2,3}|…)?|\.{2,3}|…)`;
/** key material that no word of prose looks like */
const MATERIAL = String.raw`[A-Za-z0-9+/]{16,}={0,2}(?:\.{2,3}|…)?`;
/** the body flattened onto the header's line */
const FLAT = `${BLANK}+${MATERIAL}(?:${BLANK}+${TOKEN})*${BLANK}*`;
/** a token that ends its line (or the text, a quoted string, a list item) */
const LINE_END = String.raw`(?=${BLANK}*(?:[\r\n\\"'\x60,;]|$))`;

/** a line of a body after its line break: a token, or blank */
const LINE = `${NL}${BLANK}*(?:${TOKEN}${BLANK}*)?`;
/** header, body, footer */
const BLOCK = new RegExp(`-----BEGIN ${KIND}(?:${FLAT}|${BLANK}*)${FIELDS}(?:${LINE})*-----END ${KIND}`, 'y');
/** header, key material first, then the lines that are base64 through */
const CUT = new RegExp(
  `-----BEGIN ${KIND}(?:${FLAT}|${BLANK}*${FIELDS}(?:${NL}${BLANK}*)*${NL}${BLANK}*${MATERIAL})` +
    `(?:${NL}${BLANK}*${TOKEN}${LINE_END})*`,
  'y',
);

const HEADER = '-----BEGIN ';

/**
 * The most characters a block without a footer covers (the detector's `maxLength`). NB: the stream redactor relies
 * on a bound: it stops holding text after a header this far back, and a footerless block cut at the end of its
 * window would otherwise hold it for ever. A block with its footer is masked whole, however long, in a whole text;
 * in a stream, as far as this bound (stream.ts).
 */
export const PEM_MAX_CHARS = 16_384;

/** The end of a match of the sticky `re` at `at`, or -1. */
function matchEnd(re: RegExp, text: string, at: number): number {
  re.lastIndex = at;
  const end = re.test(text) ? re.lastIndex : -1;
  re.lastIndex = 0;
  return end;
}

/** The [start, end) of every PEM private-key block, left to right; a block found is not searched again. */
export function pemSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  let at = text.indexOf(HEADER);
  while (at >= 0) {
    let end = matchEnd(BLOCK, text, at);
    if (end < 0) end = matchEnd(CUT, text.length > at + PEM_MAX_CHARS ? text.slice(0, at + PEM_MAX_CHARS) : text, at);
    if (end < 0) {
      at = text.indexOf(HEADER, at + 1);
      continue;
    }
    out.push([at, end]);
    at = text.indexOf(HEADER, end);
  }
  return out;
}
