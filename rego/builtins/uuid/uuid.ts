/** uuid.rfc4122 (random v4, memoised per evaluation) and uuid.parse (google/uuid rules, OPA's fields; lib/uuid). */
import { T } from '../../types.js';
import { RObject, keyOf, normNum, type Value } from '../../value.js';
import { newUUIDv4, parseUUID, uuidFields } from '../../lib/uuid/index.js';
import * as A from '../args.js';
import type { BuiltinContext, BuiltinRegistry } from '../registry.js';

function rfc4122Impl(args: readonly Value[], ctx: BuiltinContext): Value {
  const key = `uuid.rfc4122:${keyOf(A.any(args, 0))}`;
  const hit = ctx.cache.get(key);
  if (typeof hit === 'string') return hit;
  const id = newUUIDv4();
  ctx.cache.set(key, id);
  return id;
}

/** The fields OPA reports for a UUID, as a Rego object. */
function fieldsObject(u: Uint8Array): RObject {
  const o = new RObject();
  for (const [k, v] of Object.entries(uuidFields(u))) o.set(k, typeof v === 'bigint' ? normNum(v) : (v as Value));
  return o;
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'uuid.rfc4122', args: [T.string], result: T.string, nondeterministic: true }, rfc4122Impl);
  r.add({ name: 'uuid.parse', args: [T.string], result: T.object(T.string, T.any) }, (args) => {
    const u = parseUUID(A.str(args, 0));
    return u === undefined ? undefined : fieldsObject(u);
  });
}
