/**
 * walk(x): every [path, value] pair of x. It yields many results, so the evaluator enumerates it
 * (eval/special.ts); the implementation here only serves callers that want the first pair.
 */
import { T } from '../../types.js';
import type { BuiltinRegistry } from '../registry.js';

const decls = {
  walk: { name: 'walk', args: [T.any], result: T.tuple(T.array(T.any), T.any) },
} as const;

export function register(r: BuiltinRegistry): void {
  r.add(decls.walk, (a) => [[], a[0]!]);
}
