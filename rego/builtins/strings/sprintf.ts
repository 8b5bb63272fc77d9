/**
 * sprintf(format, values): Go's fmt.Sprintf over the argument conversion OPA performs
 * (v1/topdown/strings.go builtinSprintf):
 *  - an integer fitting int64 is a Go `int`, a larger integer a `*big.Int`, any other number a float64;
 *  - a string is a Go string;
 *  - every other value (booleans and null included) is passed as its Rego text, e.g. `["a", 1]`,
 *    `{"k": 1}`, `set()`, `true` — so `%d` of `true` prints `%!d(string=true)` exactly as OPA does.
 */
import { operandError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, hasIntText, toRegoText, type Value } from '../../value.js';
import { str } from '../args.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';
import { goSprintf, type GoArg } from '../../lib/gofmt/index.js';

const decl: BuiltinDecl = { name: 'sprintf', args: [T.string, T.array(T.any)], result: T.string };

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

function intArg(v: bigint): GoArg {
  return v <= INT64_MAX && v >= INT64_MIN ? { t: 'int', v } : { t: 'big', v };
}

/** How OPA hands a Rego value to Go's fmt. */
export function toGoArg(v: Value): GoArg {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? intArg(BigInt(v)) : { t: 'float', v };
    case 'bigint':
      return intArg(v);
    case 'string':
      return { t: 'string', v };
    default:
      // NB: OPA hands a number that json.Number.Int64 and big.Int cannot parse (`1.0`, `1e3`) to fmt as float64.
      if (v instanceof NumLit) return hasIntText(v) ? intArg(BigInt(v.text)) : { t: 'float', v: Number(v.n) };
      return { t: 'string', v: toRegoText(v) };
  }
}

/**
 * The common case without Go's printer: only `%s`/`%v` of strings, `%d`/`%v` of safe integers and
 * `%%`, one argument per verb. Returns undefined for anything else (flags, widths, other verbs or
 * types, missing or extra arguments), which goSprintf then formats — and reports — as Go does.
 */
function plainSprintf(format: string, values: readonly Value[]): string | undefined {
  let out = '';
  let last = 0;
  let ai = 0;
  for (let i = format.indexOf('%'); i >= 0; i = format.indexOf('%', last)) {
    out += format.slice(last, i);
    last = i + 2;
    const c = format.charCodeAt(i + 1);
    if (c === 0x25) {
      out += '%';
      continue;
    }
    if (ai >= values.length) return undefined;
    const v = values[ai++];
    if (typeof v === 'string' && (c === 0x73 || c === 0x76)) out += v;
    else if (typeof v === 'number' && Number.isSafeInteger(v) && (c === 0x64 || c === 0x76)) out += String(v);
    else return undefined;
  }
  return ai === values.length ? out + format.slice(last) : undefined;
}

/** sprintf as OPA evaluates it, for callers outside the registry (tests, string templates). */
export function regoSprintf(format: string, values: readonly Value[]): string {
  return plainSprintf(format, values) ?? goSprintf(format, values.map(toGoArg));
}

const sprintf: BuiltinImpl = (args) => {
  const format = str(args, 0);
  const values = args[1];
  if (!Array.isArray(values)) throw operandError(2, 'array', values ?? null);
  return regoSprintf(format, values);
};

export function register(r: BuiltinRegistry): void {
  r.add(decl, sprintf);
}
