/**
 * yaml.unmarshal / yaml.is_valid / yaml.marshal as OPA does them through sigs.k8s.io/yaml and
 * go-yaml v2: YAML 1.1 scalars (yes/no/on/off are booleans, 0777 is octal) without timestamps or
 * sexagesimal numbers, only the first document, map keys stringified, and output in yaml.v2's
 * block style (lib/yaml). Reading goes through the `yaml` package configured for go-yaml's YAML 1.1.
 */
import YAML from 'yaml';
import { BuiltinError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, hasIntText, normNum, type Value } from '../../value.js';
import * as A from '../args.js';
import { emitYAML, type YamlNode } from '../../lib/yaml/index.js';
import { marshalJSON } from '../../lib/gojson/index.js';
import { goString } from '../../lib/gostrings/index.js';
import { decimalToValue } from '../../lib/bigfloat/index.js';
import { chargeDeep } from '../limits.js';
import type { BuiltinRegistry } from '../registry.js';

/** Aliases expanded per document, against "billion laughs" inputs (go-yaml has a similar guard). */
const MAX_ALIAS_COUNT = 1000;

const DROPPED_TAGS = new Set([
  'tag:yaml.org,2002:timestamp',
  'tag:yaml.org,2002:set',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
]);

const parseOptions: YAML.ParseOptions & YAML.DocumentOptions & YAML.SchemaOptions = {
  version: '1.1',
  schema: 'yaml-1.1',
  merge: true,
  uniqueKeys: false,
  intAsBigInt: true,
  // go-yaml v2 has no timestamps (for interface{} targets), sets, or base-60 numbers.
  customTags: (tags) =>
    (tags as YAML.Tags).filter(
      (t) => !DROPPED_TAGS.has((t as { tag: string }).tag) && (t as { format?: string }).format !== 'TIME',
    ),
};

/** go-yaml's wording for the problems the yaml package reports differently. */
function goYAMLProblem(e: YAML.YAMLError): string {
  const first = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  switch (e.code) {
    case 'MISSING_CHAR':
      if (first.startsWith('Flow sequence')) return "did not find expected ',' or ']'";
      if (first.startsWith('Flow map')) return "did not find expected ',' or '}'";
      if (first.startsWith('Missing closing')) return 'found unexpected end of stream';
      return "could not find expected ':'";
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return 'mapping values are not allowed in this context';
    case 'TAB_AS_INDENT':
    case 'BAD_SCALAR_START':
      return 'found character that cannot start any token';
    case 'BAD_INDENT':
      return 'did not find expected key';
    default:
      return first;
  }
}

function parseError(e: YAML.YAMLError): BuiltinError {
  const line = e.linePos?.[0]?.line ?? 1;
  return new BuiltinError(`yaml: line ${line}: ${goYAMLProblem(e)}`);
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.FormatFloat(f, 'g', -1, 32), as sigs.k8s.io/yaml prints float map keys. */
export function formatFloat32Key(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (!Number.isFinite(f)) return f > 0 ? '.inf' : '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const f32 = Math.fround(f);
  // Shortest digits that read back to the same float32.
  let p = 1;
  while (p < 9 && Math.fround(Number(f32.toPrecision(p))) !== f32) p++;
  const [mant, expText] = f32.toExponential(p - 1).split('e') as [string, string];
  const exp = Number(expText);
  // %g with the shortest precision switches to %e from exponent 6 (Go's eprec), or below -4.
  if (exp < -4 || exp >= 6) {
    return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(Number(f32.toPrecision(p)));
}

function keyString(k: unknown): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'bigint') return k.toString();
  if (typeof k === 'number') return formatFloat32Key(k);
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (k instanceof Uint8Array) return goString(k);
  throw new BuiltinError(`Unsupported map key of type: ${k === null ? '%!s(<nil>)' : typeof k}`);
}

/** A float as OPA sees it after JSON: non-finite values cannot be encoded. */
function floatValue(f: number): Value {
  if (!Number.isFinite(f)) {
    throw new BuiltinError(`json: unsupported value: ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  }
  return decimalToValue(String(f)) ?? normNum(f);
}

/** Converts the yaml package's JS output (mapAsMap) the way YAMLToJSON and json decoding would. */
function toValue(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x;
    case 'bigint':
      // go-yaml reads integers beyond int64/uint64 as floats.
      return x >= INT64_MIN && x <= UINT64_MAX ? normNum(x) : floatValue(Number(x));
    case 'number':
      return floatValue(x);
    default:
      break;
  }
  if (x instanceof Uint8Array) return goString(x);
  if (Array.isArray(x)) return x.map(toValue);
  if (x instanceof Map) {
    const o = new RObject();
    for (const [k, v] of x) o.set(keyString(k), toValue(v));
    return o;
  }
  throw new BuiltinError(`yaml: cannot decode ${Object.prototype.toString.call(x)}`);
}

export function parseYAML(text: string): Value {
  const docs = YAML.parseAllDocuments(text, parseOptions);
  const list = Array.isArray(docs) ? docs : [docs];
  const doc = list[0];
  if (doc === undefined) return null;
  const err = doc.errors[0];
  if (err !== undefined) throw parseError(err);
  let js: unknown;
  try {
    js = doc.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof ReferenceError) {
      const anchor = /alias \*?(\S+)/.exec(e.message)?.[1] ?? '';
      throw new BuiltinError(`yaml: unknown anchor '${anchor}' referenced`);
    }
    if (e instanceof Error) throw new BuiltinError(`yaml: ${e.message}`);
    throw e;
  }
  return toValue(js);
}

/** ast.JSON, json.Marshal and yaml.Unmarshal in one step, as OPA's yaml.marshal does: sets → arrays, keys → strings. */
function toNode(v: Value): YamlNode {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= UINT64_MAX ? v : Number(v);
  if (Array.isArray(v)) return v.map(toNode);
  if (v instanceof RSet) return v.values().map(toNode);
  // YAML reads a literal's JSON text `1.0` or `1e3` as a float.
  if (v instanceof NumLit) return hasIntText(v) ? toNode(v.n) : Number(v.n);
  const m = new Map<string, YamlNode>();
  for (const [k, x] of (v as RObject).entries()) m.set(typeof k === 'string' ? k : marshalJSON(k), toNode(x));
  return m;
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'yaml.marshal', args: [T.any], result: T.string }, (args, ctx) => {
    chargeDeep(ctx, A.any(args, 0));
    return emitYAML(toNode(A.any(args, 0)));
  });
  r.add({ name: 'yaml.unmarshal', args: [T.string], result: T.any }, (args) => parseYAML(A.str(args, 0)));
  r.add({ name: 'yaml.is_valid', args: [T.string], result: T.boolean }, (args) => {
    const v = A.any(args, 0);
    if (typeof v !== 'string') return false;
    try {
      parseYAML(v);
      return true;
    } catch (e) {
      if (e instanceof BuiltinError) return false;
      throw e;
    }
  });
}
