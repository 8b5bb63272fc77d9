/**
 * LIST semantics: namespace and selector filtering, `limit`/`continue` pagination that stays consistent
 * at the first page's resourceVersion (reconstructed from history), `remainingItemCount`, and the
 * resourceVersion / resourceVersionMatch rules.
 */
import type { ResourceType } from '../registry.js';
import type { JsonObject } from '../schema/types.js';
import { badRequest, expired, timeoutError } from '../status-errors.js';
import type { ListOptions, ListResult, ObjectStore } from './objects.js';
import { compileQuery, CONTINUE_EXPIRED_MESSAGE, decodeContinue, encodeContinue } from './query.js';

export function listObjects(store: ObjectStore, type: ResourceType, opts: ListOptions): ListResult {
  const { predicate, empty } = compileQuery(type, opts);
  const prefix = type.namespaced && opts.namespace ? `${opts.namespace}/` : '';
  const current = store.versioned.currentRv;
  let rv = current;
  let start = '';
  if (opts.continue) {
    if (opts.resourceVersion) throw badRequest('specifying resource version is not allowed when using continue');
    const tok = decodeContinue(opts.continue);
    if (tok.rv < store.versioned.compactedRv) throw expired(CONTINUE_EXPIRED_MESSAGE);
    rv = tok.rv;
    start = tok.start;
  } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
    const asked = Number(opts.resourceVersion);
    if (!Number.isInteger(asked) || asked < 0) throw badRequest(`invalid resource version: ${opts.resourceVersion}`);
    if (opts.resourceVersionMatch === 'Exact') rv = asked;
    else if (asked > current) throw timeoutError(`Too large resource version: ${asked}, current: ${current}`, 1);
  }
  if (opts.resourceVersionMatch && !['Exact', 'NotOlderThan'].includes(opts.resourceVersionMatch)) {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${opts.resourceVersionMatch}"`);
  }
  const entries =
    rv === current
      ? store.versioned.list(type.storageKey, prefix)
      : store.versioned.listAt(type.storageKey, rv, prefix);
  // NB: resourceVersion=0 is served from the watch cache, which ignores limit.
  const limit = opts.resourceVersion === '0' ? 0 : Math.max(0, opts.limit ?? 0);
  const items: JsonObject[] = [];
  let lastKey = '';
  let more = false;
  let remaining = 0;
  for (const [key, o] of entries) {
    if (start && key <= start) continue;
    if (!predicate(o)) continue;
    if (limit && items.length >= limit) {
      more = true;
      remaining++;
      continue;
    }
    items.push(store.fromStored(type, o));
    lastKey = key;
  }
  const out: ListResult = { items, resourceVersion: String(rv) };
  if (more) {
    out.continue = encodeContinue(rv, lastKey);
    if (empty) out.remainingItemCount = remaining;
  }
  return out;
}
