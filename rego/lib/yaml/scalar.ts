/**
 * How libyaml (through go-yaml v2) writes a string scalar: what yaml.v2 would read a plain scalar
 * back as, the analysis of the text libyaml makes, and the style it picks from it.
 */

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

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

export const isBreak = (c: string | undefined): boolean =>
  c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankZ = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\t' || isBreak(c);

export function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

export interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

export function analyze(s: string): Analysis {
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

export type Style = 'plain' | 'single' | 'double' | 'literal';

/** yaml.v2's requested style for a string, then libyaml's fallbacks in block context. */
export function selectStyle(s: string, a: Analysis, simpleKey: boolean): Style {
  let style: Style = s.includes('\n') ? 'literal' : resolvesToString(s) && !BASE60_FLOAT.test(s) ? 'plain' : 'double';
  if (style === 'plain') {
    if (!a.blockPlain || (s === '' && simpleKey)) style = 'single';
  }
  if (style === 'single' && !a.single) style = 'double';
  if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
  return style;
}
