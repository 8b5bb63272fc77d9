/** Comparison builtins: ==, !=, <, <=, >, >= over OPA's total order of values. */
import { T } from '../../types.js';
import { compare, equal } from '../../value.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const cmp = (name: string, infix: string): BuiltinDecl => ({ name, infix, args: [T.any, T.any], result: T.boolean });

const decls = {
  equal: cmp('equal', '=='),
  neq: cmp('neq', '!='),
  lt: cmp('lt', '<'),
  lte: cmp('lte', '<='),
  gt: cmp('gt', '>'),
  gte: cmp('gte', '>='),
} as const;

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  equal: (a) => equal(a[0]!, a[1]!),
  neq: (a) => !equal(a[0]!, a[1]!),
  lt: (a) => compare(a[0]!, a[1]!) < 0,
  lte: (a) => compare(a[0]!, a[1]!) <= 0,
  gt: (a) => compare(a[0]!, a[1]!) > 0,
  gte: (a) => compare(a[0]!, a[1]!) >= 0,
};

export function register(r: BuiltinRegistry): void {
  for (const k of Object.keys(decls) as (keyof typeof decls)[]) r.add(decls[k], impls[k]);
}
