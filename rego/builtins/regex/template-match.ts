/**
 * regex.template_match: a template whose delimited parts are regular expressions and whose other
 * text is literal ("urn:foo:{.*}" with delimiters { }). OPA compiles it the way gorilla/mux does:
 * `^` + quoted literal + `(` part `)` … + `$`, validating each part on its own first.
 */
import { BuiltinError } from '../../errors.js';
import { quote } from '../../lib/gofmt/index.js';
import { quoteMeta, type GoRegexp } from '../../lib/goregex/index.js';
import { LRU } from '../../lib/lru/index.js';
import { compilePattern } from './compile.js';

/** Top-level delimiter pairs as [start, endExclusive] indices; unbalanced templates are errors. */
function delimiterIndices(s: string, open: number, close: number): number[] {
  let level = 0;
  let idx = 0;
  const idxs: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === open) {
      if (++level === 1) idx = i;
    } else if (c === close) {
      level--;
      if (level === 0) idxs.push(idx, i + 1);
      else if (level < 0) throw new BuiltinError(`unbalanced braces in ${quote(s)}`);
    }
  }
  if (level !== 0) throw new BuiltinError(`unbalanced braces in ${quote(s)}`);
  return idxs;
}

function compileTemplate(tpl: string, open: number, close: number): GoRegexp {
  const idxs = delimiterIndices(tpl, open, close);
  let pattern = '^';
  let end = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = tpl.slice(end, idxs[i]);
    end = idxs[i + 1]!;
    const part = tpl.slice(idxs[i]! + 1, end - 1);
    pattern += `${quoteMeta(raw)}(${part})`;
    compilePattern(`^${part}$`);
  }
  pattern += `${quoteMeta(tpl.slice(end))}$`;
  return compilePattern(pattern);
}

const cache = new LRU<GoRegexp>(128);

function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** regex.template_match(template, value, delimiter_start, delimiter_end) */
export function templateMatch(tpl: string, value: string, start: string, end: string): boolean {
  // NB: OPA measures delimiters in bytes, and its end-delimiter message reports the start's length.
  if (utf8Length(start) !== 1) {
    throw new BuiltinError(`start delimiter has to be exactly one character long but is ${utf8Length(start)} long`);
  }
  if (utf8Length(end) !== 1) {
    throw new BuiltinError(`end delimiter has to be exactly one character long but is ${utf8Length(start)} long`);
  }
  const key = `${start}${end}${tpl}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileTemplate(tpl, start.charCodeAt(0), end.charCodeAt(0));
    cache.set(key, re);
  }
  return re.matchString(value);
}
