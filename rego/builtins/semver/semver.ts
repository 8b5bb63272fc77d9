/** semver.is_valid and semver.compare (OPA's topdown/semver.go over internal/semver, here lib/semver). */
import { BuiltinError } from '../../errors.js';
import { T } from '../../types.js';
import type { Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinRegistry } from '../registry.js';

import { compareSemVer, parseSemVer } from '../../lib/semver/index.js';

function compareImpl(args: readonly Value[]): Value {
  const a = A.str(args, 0);
  const b = A.str(args, 1);
  const va = parseSemVer(a);
  if (va === undefined) throw new BuiltinError(`operand 1: string ${a} is not a valid SemVer`);
  const vb = parseSemVer(b);
  if (vb === undefined) throw new BuiltinError(`operand 2: string ${b} is not a valid SemVer`);
  return compareSemVer(va, vb);
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'semver.is_valid', args: [T.any], result: T.boolean }, (args) => {
    const v = A.any(args, 0);
    return typeof v === 'string' && parseSemVer(v) !== undefined;
  });
  r.add({ name: 'semver.compare', args: [T.string, T.string], result: T.number }, compareImpl);
}
