/**
 * yaml.marshal's output, reproducing go-yaml v2's encoder on JSON-shaped data (what OPA feeds it
 * after a JSON round trip): keys in yaml.v2's natural order, sequences not indented under a key,
 * libyaml's scalar style rules (scalar.ts: plain → single → double quotes, literal blocks for
 * multi-line text) and its folding of long scalars at 80 columns (writer.ts).
 */
import { analyze } from './scalar.js';
import { BEST_INDENT, Writer, writeScalar } from './writer.js';

/** libyaml only writes keys up to this length as simple `key:` keys. */
const MAX_SIMPLE_KEY = 128;

/**
 * A document as yaml.v2 holds it after reading OPA's JSON: integers are bigints (int64 or uint64
 * range), other numbers floats, objects maps with string keys.
 */
export type YamlNode = null | boolean | bigint | number | string | YamlNode[] | Map<string, YamlNode>;
type Node = YamlNode;

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
export function emitYAML(n: YamlNode): string {
  const w = new Writer();
  // The root has indentation -2 so that its collections start at column 0.
  if (typeof n === 'string') writeScalar(w, n, BEST_INDENT, false);
  else emitNode(w, n, -BEST_INDENT, false);
  // Like libyaml's document end: a final line break unless a block scalar already ended the line.
  return w.column === 0 && w.indention ? w.out : `${w.out}\n`;
}
