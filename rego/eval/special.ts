/**
 * Builtins that need the evaluator rather than just their arguments: `walk` produces many
 * results (one per path), so it enumerates instead of returning a single value.
 */
import type { Location } from '../errors.js';
import { RObject, RSet, type Value } from '../value.js';
type KV = (v: Value) => boolean;
import type { Scope } from './scope.js';

interface Host {
  readonly sh: { step(): void };
}

export function callSpecial(
  ev: Host,
  name: string,
  args: Value[],
  _loc: Location,
  _sc: Scope,
  k: KV,
): boolean | undefined {
  if (name === 'walk') return walk(ev, args[0]!, [], k);
  return undefined;
}

/** walk(x): every [path, value] pair of x, parents before children, in OPA's order. */
function walk(ev: Host, v: Value, path: Value[], k: KV): boolean {
  ev.sh.step();
  if (k([path.slice(), v])) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      const stop = walk(ev, v[i]!, path, k);
      path.pop();
      if (stop) return true;
    }
  } else if (v instanceof RObject) {
    for (const [key, x] of v.entries()) {
      path.push(key);
      const stop = walk(ev, x, path, k);
      path.pop();
      if (stop) return true;
    }
  } else if (v instanceof RSet) {
    for (const x of v.values()) {
      path.push(x);
      const stop = walk(ev, x, path, k);
      path.pop();
      if (stop) return true;
    }
  }
  return false;
}
