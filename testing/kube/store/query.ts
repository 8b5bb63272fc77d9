/**
 * List and watch filters (namespace, label selector, field selector) compiled once per request, and the
 * `continue` tokens of paginated lists (the same JSON-in-base64 form the real server hands out).
 */
import type { ResourceType } from '../registry.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../selectors.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { badRequest } from '../status-errors.js';

export interface QueryOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export type Predicate = (stored: JsonObject) => boolean;

export function compileQuery(type: ResourceType, q: QueryOptions): { predicate: Predicate; empty: boolean } {
  const labels = parseLabelSelector(q.labelSelector ?? '');
  const fields = parseFieldSelector(q.fieldSelector ?? '');
  for (const f of fields) {
    if (f.field !== 'metadata.name' && f.field !== 'metadata.namespace' && !type.fieldSelectors[f.field]) {
      throw badRequest(`field label not supported: ${f.field}`);
    }
  }
  const ns = q.namespace;
  const getField =
    (o: JsonObject) =>
    (field: string): string | undefined => {
      const m = isObject(o.metadata) ? o.metadata : {};
      if (field === 'metadata.name') return m.name as string | undefined;
      if (field === 'metadata.namespace') return m.namespace as string | undefined;
      return type.fieldSelectors[field]!(o);
    };
  const predicate: Predicate = (o) => {
    const m = isObject(o.metadata) ? o.metadata : {};
    if (ns !== undefined && ns !== '' && m.namespace !== ns) return false;
    if (labels.length && !matchesLabels(labels, m.labels as Record<string, string> | undefined)) return false;
    if (fields.length && !matchesFields(fields, getField(o))) return false;
    return true;
  };
  return { predicate, empty: labels.length === 0 && fields.length === 0 };
}

export interface ContinueToken {
  rv: number;
  /** The key after which the next page starts. */
  start: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` });
  return Buffer.from(json, 'utf8').toString('base64url');
}

export function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or json');
  }
  if (!isObject(parsed) || parsed.v !== 'meta.k8s.io/v1')
    throw badRequest('continue key is not valid: server does not recognize this encoded key');
  const rv = parsed.rv;
  const start = parsed.start;
  if (typeof rv !== 'number' || rv <= 0 || typeof start !== 'string')
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return { rv, start: start.endsWith('\u0000') ? start.slice(0, -1) : start };
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
