/**
 * glob.match and glob.quote_meta (OPA v1/topdown/glob.go over gobwas/glob, here lib/glob).
 * Delimiters: `null` means none, an empty array means ["."], otherwise each must be one character.
 */
import { operandElementError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import type { Value } from '../../value.js';
import { str } from '../args.js';
import { GlobError, compileGlob, globQuoteMeta } from '../../lib/glob/index.js';
import { libraryCall } from '../lib-errors.js';
import type { BuiltinImpl, BuiltinRegistry } from '../registry.js';

const DOT = [0x2e];

/** OPA's delimiter operand: null → none, [] → ["."], else single-character strings. */
function delimiterRunes(v: Value): number[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw operandError(2, ['array', 'null'], v);
  const runes: number[] = [];
  for (const d of v) {
    if (typeof d !== 'string') throw operandElementError(2, v, d, 'string');
    const cps = Array.from(d);
    if (cps.length !== 1) throw operandElementError(2, v, d, 'rune');
    runes.push(cps[0]!.codePointAt(0)!);
  }
  return runes.length === 0 ? DOT : runes;
}

const globMatch: BuiltinImpl = (args) => {
  const pattern = str(args, 0);
  const delims = delimiterRunes(args[1]!);
  const value = str(args, 2);
  return libraryCall([GlobError], () => compileGlob(pattern, delims)).match(value);
};

export function register(r: BuiltinRegistry): void {
  r.add(
    { name: 'glob.match', args: [T.string, T.anyOf(T.array(T.string), T.null), T.string], result: T.boolean },
    globMatch,
  );
  r.add({ name: 'glob.quote_meta', args: [T.string], result: T.string }, (args) => globQuoteMeta(str(args, 0)));
}
