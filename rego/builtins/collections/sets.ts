/** Set operations: `&` (and), `|` (or), intersection, union and the deprecated set_diff (OPA's sets.go, binary.go). */
import { operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RSet, type Value } from '../../value.js';
import * as A from '../args.js';
import { setDiff } from '../numbers/numbers.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const setOfAny = T.set();

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  and: { args: [setOfAny, setOfAny], result: setOfAny, infix: '&' },
  or: { args: [setOfAny, setOfAny], result: setOfAny, infix: '|' },
  intersection: { args: [T.set(setOfAny)], result: setOfAny },
  union: { args: [T.set(setOfAny)], result: setOfAny },
  set_diff: { args: [setOfAny, setOfAny], result: setOfAny, deprecated: true },
};

export function intersect(a: RSet, b: RSet): RSet {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new RSet();
  small.forEachUnordered((v) => {
    if (large.has(v)) out.add(v);
  });
  return out;
}

export function unite(a: RSet, b: RSet): RSet {
  const out = new RSet();
  a.forEachUnordered((v) => out.add(v));
  b.forEachUnordered((v) => out.add(v));
  return out;
}

/** Members of a set of sets; a non-set member is OPA's `operand 1 must be set` error. */
function memberSets(args: readonly Value[]): RSet[] {
  const out: RSet[] = [];
  for (const x of A.set(args, 0).values()) {
    if (!(x instanceof RSet)) throw operandError(1, 'set', x);
    out.push(x);
  }
  return out;
}

function intersectionImpl(args: readonly Value[]): Value {
  const sets = memberSets(args);
  if (sets.length === 0) return new RSet();
  return sets.reduce((acc, s) => intersect(acc, s));
}

function unionImpl(args: readonly Value[]): Value {
  const out = new RSet();
  for (const s of memberSets(args)) s.forEachUnordered((v) => out.add(v));
  return out;
}

const impls: Record<string, BuiltinImpl> = {
  and: (args) => intersect(A.set(args, 0), A.set(args, 1)),
  or: (args) => unite(A.set(args, 0), A.set(args, 1)),
  intersection: intersectionImpl,
  union: unionImpl,
  set_diff: (args) => setDiff(A.set(args, 0), A.set(args, 1)),
};

export function register(r: BuiltinRegistry): void {
  for (const [name, decl] of Object.entries(decls)) r.add({ name, ...decl }, impls[name]!);
}
