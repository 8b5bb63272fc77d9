/**
 * yaml.marshal's output, reproducing go-yaml v2's encoder on JSON-shaped data (what OPA feeds it
 * after a JSON round trip): keys in yaml.v2's natural order, sequences not indented under a key,
 * libyaml's scalar style rules (plain → single → double quotes, literal blocks for multi-line text)
 * and its folding of long scalars at 80 columns.
 */
import { NumLit, RObject, RSet, hasIntText, type Value } from '../value.js';
import { marshalJSON } from './encoding-json.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** libyaml only writes keys up to this length as simple `key:` keys. */
const MAX_SIMPLE_KEY = 128;

type Node = null | boolean | bigint | number | string | Node[] | Map<string, Node>;

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** ast.JSON, json.Marshal and yaml.Unmarshal in one step: sets → arrays, keys → strings. */
function toNode(v: Value): Node {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= UINT64_MAX ? v : Number(v);
  if (Array.isArray(v)) return v.map(toNode);
  if (v instanceof RSet) return v.values().map(toNode);
  // YAML reads a literal's JSON text `1.0` or `1e3` as a float.
  if (v instanceof NumLit) return hasIntText(v) ? toNode(v.n) : Number(v.n);
  const m = new Map<string, Node>();
  for (const [k, x] of (v as RObject).entries()) m.set(typeof k === 'string' ? k : marshalJSON(k), toNode(x));
  return m;
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** yaml.v2's keyList.Less for string keys: runs of digits compare numerically, letters after others. */
export function naturalLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.charCodeAt(0) - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

// ---------------------------------------------------------------------------------------------
// What yaml.v2 would read a plain scalar as (resolve): only STR-resolving strings stay plain.

const RESOLVE_MAP = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'off',
  'Off',
  'OFF',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'null',
  'Null',
  'NULL',
  '~',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);
const GO_INT = /^[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_FLOAT_DOT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const TIMESTAMP =
  /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d*)?(?:[ \t]*(?:Z|[+-]\d{1,2}(?::\d{2})?))?)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function resolvesToString(s: string): boolean {
  if (s === '' || RESOLVE_MAP.has(s)) return false;
  const c = s[0]!;
  if (c === '.') return !GO_FLOAT_DOT.test(s);
  if (isDigit(c) || c === '+' || c === '-') {
    if (TIMESTAMP.test(s)) return false;
    const plain = s.replaceAll('_', '');
    if (GO_INT.test(plain) || YAML_FLOAT.test(plain)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// libyaml's scalar analysis and style selection.

const isBreak = (c: string | undefined): boolean =>
  c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankZ = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\t' || isBreak(c);

function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

function analyze(s: string): Analysis {
  if (s === '') return { multiline: false, blockPlain: true, single: true, block: false };
  const cs = [...s];
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let special = false;
  let lineBreaks = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  let precededByWS = true;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    const followedByWS = isBlankZ(cs[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      if ((c === '?' || c === ':') && followedByWS) blockIndicators = true;
      if (c === '-' && followedByWS) blockIndicators = true;
    } else {
      if (c === ':' && followedByWS) blockIndicators = true;
      if (c === '#' && precededByWS) blockIndicators = true;
    }
    if (!isPrintable(c)) special = true;
    if (isBreak(c)) lineBreaks = true;
    const last = i === cs.length - 1;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevBreak = true;
      prevSpace = false;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWS = isBlankZ(c);
  }
  let blockPlain = true;
  let single = true;
  let block = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlain = false;
  if (trailingSpace) block = false;
  if (breakSpace) blockPlain = single = false;
  if (spaceBreak || special) blockPlain = single = block = false;
  if (lineBreaks) blockPlain = false;
  if (blockIndicators) blockPlain = false;
  return { multiline: lineBreaks, blockPlain, single, block };
}

type Style = 'plain' | 'single' | 'double' | 'literal';

/** yaml.v2's requested style for a string, then libyaml's fallbacks in block context. */
function selectStyle(s: string, a: Analysis, simpleKey: boolean): Style {
  let style: Style = s.includes('\n') ? 'literal' : resolvesToString(s) && !BASE60_FLOAT.test(s) ? 'plain' : 'double';
  if (style === 'plain') {
    if (!a.blockPlain || (s === '' && simpleKey)) style = 'single';
  }
  if (style === 'single' && !a.single) style = 'double';
  if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
  return style;
}

// ---------------------------------------------------------------------------------------------
// The writer: tracks the column so long scalars fold as libyaml folds them.

class Writer {
  out = '';
  column = 0;
  /** Whether the last thing written was whitespace (libyaml's emitter->whitespace). */
  whitespace = true;
  indention = true;

  put(s: string): void {
    for (const c of s) {
      this.out += c;
      this.column = c === '\n' ? 0 : this.column + 1;
    }
    this.whitespace = false;
    this.indention = false;
  }

  /** libyaml's write_indicator: a separating space if needed; `indention` says if we stay in it. */
  indicator(s: string, needSpace: boolean, indention: boolean): void {
    if (needSpace && !this.whitespace) this.put(' ');
    const keep = this.indention && indention;
    this.put(s);
    this.indention = keep;
  }

  newline(): void {
    this.out += '\n';
    this.column = 0;
  }

  /** libyaml's write_indent: a line break unless at the indentation already, then spaces. */
  indent(n: number): void {
    if (!this.indention || this.column > n || (this.column === n && !this.whitespace)) this.newline();
    while (this.column < n) {
      this.out += ' ';
      this.column++;
    }
    this.whitespace = true;
    this.indention = true;
  }
}

const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\x0b': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\u0085': 'N',
  '\u00a0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

function escapeChar(c: string): string {
  const named = ESCAPES[c];
  if (named !== undefined) return `\\${named}`;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

function writeScalar(w: Writer, s: string, indent: number, simpleKey: boolean): void {
  const a = analyze(s);
  const style = selectStyle(s, a, simpleKey);
  const breaks = !simpleKey;
  const cs = [...s];
  if (!w.whitespace) w.put(' ');
  switch (style) {
    case 'plain': {
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && cs[i + 1] !== ' ') w.indent(indent);
          else w.put(c);
          spaces = true;
        } else {
          w.put(c);
          spaces = false;
        }
      }
      return;
    }
    case 'single': {
      w.put("'");
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1 && cs[i + 1] !== ' ') {
            w.indent(indent);
          } else w.put(c);
          spaces = true;
        } else {
          w.put(c === "'" ? "''" : c);
          spaces = false;
        }
      }
      w.put("'");
      return;
    }
    case 'double': {
      w.put('"');
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (!isPrintable(c) || c === '\ufeff' || isBreak(c) || c === '"' || c === '\\') {
          w.put(escapeChar(c));
          spaces = false;
        } else if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1) {
            w.indent(indent);
            if (cs[i + 1] === ' ') w.put('\\');
          } else w.put(c);
          spaces = true;
        } else {
          w.put(c);
          spaces = false;
        }
      }
      w.put('"');
      return;
    }
    default:
      writeLiteral(w, cs, indent);
  }
}

function writeLiteral(w: Writer, cs: string[], indent: number): void {
  let hints = '|';
  if (cs[0] === ' ' || isBreak(cs[0])) hints += String(BEST_INDENT);
  const lastIsBreak = isBreak(cs[cs.length - 1]);
  if (!lastIsBreak) hints += '-';
  else if (cs.length === 1 || isBreak(cs[cs.length - 2])) hints += '+';
  w.put(hints);
  w.newline();
  w.indention = true;
  w.whitespace = true;
  let pendingBreak = true;
  for (const c of cs) {
    if (isBreak(c)) {
      w.newline();
      w.indention = true;
      pendingBreak = true;
    } else {
      if (pendingBreak) w.indent(indent);
      w.put(c);
      pendingBreak = false;
    }
  }
}

/** FormatFloat(f, 'g', -1, 64) with yaml.v2's names for the non-finite values. */
function formatFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (!Number.isFinite(f)) return f > 0 ? '.inf' : '-.inf';
  const [mant, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // %g at the shortest precision switches to %e below 1e-4 and from 1e6 on.
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

function scalarText(n: Node): string | undefined {
  if (n === null) return 'null';
  if (typeof n === 'boolean') return n ? 'true' : 'false';
  if (typeof n === 'bigint') return n.toString();
  if (typeof n === 'number') return formatFloat(n);
  return undefined;
}

function isEmptyCollection(n: Node): string | undefined {
  if (Array.isArray(n) && n.length === 0) return '[]';
  if (n instanceof Map && n.size === 0) return '{}';
  return undefined;
}

/** Emits a node as a block-context value; `indent` is its own indentation level. */
function emitNode(w: Writer, n: Node, indent: number, inMapping: boolean): void {
  const plain = scalarText(n);
  if (plain !== undefined) {
    if (!w.whitespace) w.put(' ');
    w.put(plain);
    return;
  }
  if (typeof n === 'string') {
    writeScalar(w, n, indent + BEST_INDENT, false);
    return;
  }
  const empty = isEmptyCollection(n);
  if (empty !== undefined) {
    if (!w.whitespace) w.put(' ');
    w.put(empty);
    return;
  }
  if (Array.isArray(n)) {
    // A sequence under a mapping key is not indented (libyaml's indentless sequence).
    const at = inMapping ? indent : indent + BEST_INDENT;
    for (const item of n) {
      w.indent(at);
      w.indicator('-', true, true);
      emitNode(w, item, at, false);
    }
    return;
  }
  const at = indent + BEST_INDENT;
  const keys = [...(n as Map<string, Node>).keys()].sort((a, b) =>
    naturalLess(a, b) ? -1 : naturalLess(b, a) ? 1 : 0,
  );
  for (const k of keys) {
    const v = (n as Map<string, Node>).get(k)!;
    w.indent(at);
    if ([...k].length <= MAX_SIMPLE_KEY && !analyze(k).multiline) {
      writeScalar(w, k, at, true);
    } else {
      w.indicator('?', true, true);
      writeScalar(w, k, at + BEST_INDENT, false);
      w.indent(at);
    }
    w.indicator(':', false, false);
    emitNode(w, v, at, true);
  }
}

/** yaml.marshal: the YAML document OPA produces for a value. */
export function emitYAML(v: Value): string {
  const w = new Writer();
  const n = toNode(v);
  // The root has indentation -2 so that its collections start at column 0.
  if (typeof n === 'string') writeScalar(w, n, BEST_INDENT, false);
  else emitNode(w, n, -BEST_INDENT, false);
  // Like libyaml's document end: a final line break unless a block scalar already ended the line.
  return w.column === 0 && w.indention ? w.out : `${w.out}\n`;
}
