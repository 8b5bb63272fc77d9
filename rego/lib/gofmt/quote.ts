/**
 * Go's strconv quoting (Quote, QuoteToASCII, QuoteRune, CanBackquote) and unicode.IsPrint, as used
 * by fmt's %q and %#U verbs.
 */

// NB: Go's IsPrint is letters, marks, numbers, punctuation, symbols and U+0020 — not other spaces
// and not format characters. JS's Unicode tables may be a version apart from Go's.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

export function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return false;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function escapeRune(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote || cp === 0x5c) return `\\${String.fromCodePoint(cp)}`;
  if (asciiOnly ? cp < 0x80 && isPrint(cp) : isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
  // Lone surrogates cannot occur in Go strings; print them as Go prints invalid runes.
  const r = cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ? 0xfffd : cp;
  return r < 0x10000 ? `\\u${hex(r, 4)}` : `\\U${hex(r, 8)}`;
}

function quoteWith(s: string, quote: number, asciiOnly: boolean): string {
  const q = String.fromCharCode(quote);
  let out = q;
  for (const ch of s) out += escapeRune(ch.codePointAt(0)!, quote, asciiOnly);
  return out + q;
}

/** strconv.Quote */
export function quote(s: string): string {
  return quoteWith(s, 0x22, false);
}

/** strconv.QuoteToASCII */
export function quoteToASCII(s: string): string {
  return quoteWith(s, 0x22, true);
}

/** strconv.QuoteRune / QuoteRuneToASCII; invalid code points print as U+FFFD. */
export function quoteRune(cp: number, asciiOnly: boolean): string {
  const r = cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ? 0xfffd : cp;
  return `'${escapeRune(r, 0x27, asciiOnly)}'`;
}

/** strconv.CanBackquote: no control characters other than tab, no backquote, no BOM. */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfeff) return false;
    if (cp >= 0xd800 && cp < 0xe000) return false;
    if (cp < 0x80 && ((cp < 0x20 && cp !== 0x09) || cp === 0x60 || cp === 0x7f)) return false;
  }
  return true;
}
