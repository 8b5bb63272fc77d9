/**
 * regex.* builtins (OPA v1/topdown/regex.go) on RE2 (re2js): Go's syntax, linear-time matching.
 * Invalid patterns are builtin errors with Go's `error parsing regexp: …` text. Matching runs on
 * V8's RegExp when that is provably equivalent and linear-time safe (lib/goregex).
 */
import { T, type Type } from '../../types.js';
import type { Value } from '../../value.js';
import { int, str } from '../args.js';
import { GlobIntersectionError, globsIntersect } from '../../lib/globintersect/index.js';
import { isValidRegexp } from '../../lib/goregex/index.js';
import { libraryCall } from '../lib-errors.js';
import { compilePatternAt } from './compile.js';
import { templateMatch } from './template-match.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const S = T.string;

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  'regex.match': { args: [S, S], result: T.boolean },
  re_match: { args: [S, S], result: T.boolean, deprecated: true },
  'regex.is_valid': { args: [S], result: T.boolean },
  'regex.split': { args: [S, S], result: T.array(S) },
  'regex.find_n': { args: [S, S, T.number], result: T.array(S) },
  'regex.find_all_string_submatch_n': { args: [S, S, T.number], result: T.array(T.array(S)) },
  'regex.replace': { args: [S, S, S], result: S },
  'regex.template_match': { args: [S, S, S, S], result: T.boolean },
  'regex.globs_match': { args: [S, S], result: T.boolean },
};

const regexMatch: BuiltinImpl = (args, _ctx, site) => {
  const pattern = str(args, 0);
  const value = str(args, 1);
  return compilePatternAt(pattern, site).matchString(value);
};

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  'regex.match': regexMatch,
  re_match: regexMatch,
  // A non-string operand is simply not a valid pattern (no type error), as in OPA.
  'regex.is_valid': (args) => typeof args[0] === 'string' && isValidRegexp(args[0]),
  'regex.split': (args, _ctx, site) => {
    const pattern = str(args, 0);
    const value = str(args, 1);
    return compilePatternAt(pattern, site).split(value, -1);
  },
  'regex.find_n': (args, ctx, site) => {
    const pattern = str(args, 0);
    const value = str(args, 1);
    const n = int(args, 2);
    const bounds = compilePatternAt(pattern, site).findAllIndex(value, n, () => ctx.checkDeadline());
    const out: Value[] = [];
    for (let i = 0; i < bounds.length; i += 2) out.push(value.slice(bounds[i], bounds[i + 1]));
    return out;
  },
  'regex.find_all_string_submatch_n': (args, ctx, site) => {
    const pattern = str(args, 0);
    const value = str(args, 1);
    const n = int(args, 2);
    // Groups that did not take part in the match are empty strings, as in Go.
    return compilePatternAt(pattern, site).findAllSubmatch(value, n, () => ctx.checkDeadline());
  },
  'regex.replace': (args, ctx, site) => {
    const s = str(args, 0);
    const pattern = str(args, 1);
    const value = str(args, 2);
    return compilePatternAt(pattern, site).replaceOPA(s, value, () => ctx.checkDeadline());
  },
  'regex.template_match': (args) => templateMatch(str(args, 0), str(args, 1), str(args, 2), str(args, 3)),
  'regex.globs_match': (args, ctx) => {
    const lhs = str(args, 0);
    const rhs = str(args, 1);
    return libraryCall([GlobIntersectionError], () => globsIntersect(lhs, rhs, () => ctx.checkDeadline()));
  },
};

export function register(r: BuiltinRegistry): void {
  for (const [name, d] of Object.entries(decls) as [keyof typeof decls, { args: Type[]; result: Type }][]) {
    r.add({ name, ...d }, impls[name]);
  }
}
