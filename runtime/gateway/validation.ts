import type { z } from 'zod';
import { bodyCheck } from '../http/body-validator.js';
import { ApiError, echo } from '../http/errors.js';

/** The most field problems one answer lists. */
const MAX_FIELDS = 20;

/**
 * Validates a JSON body against a zod schema: 400 INVALID_REQUEST naming every bad field, so that
 * clients fix all of them at once. A body the schema's compiled check accepts is returned as it is (zod would
 * return an equal copy: see body-validator.ts); zod parses the others.
 */
export function parseBody<S extends z.ZodTypeAny>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('gateway', 'INVALID_REQUEST', 'the body must be a JSON object');
  }
  if (bodyCheck(schema)?.(body)) return body as z.infer<S>;
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // NB: a path names the caller's own keys (a metadata key): each part is bounded like every echo of input.
  const pathOf = (path: PropertyKey[]) => path.map((p) => echo(String(p))).join('.');
  const fields = result.error.issues
    .slice(0, MAX_FIELDS)
    .map((i) => ({ field: pathOf(i.path) || '(body)', message: i.message }));
  const missing = result.error.issues
    .filter((i) => i.code === 'invalid_type' && i.input === undefined)
    .slice(0, MAX_FIELDS)
    .map((i) => pathOf(i.path));
  const message = missing.length
    ? `missing required field(s): ${missing.join(', ')}`
    : `invalid field(s): ${fields.map((f) => `${f.field} (${f.message})`).join('; ')}`;
  throw new ApiError('gateway', 'INVALID_REQUEST', message, { fields });
}

/**
 * Validates a query string (fastify parses it into an object) as `parseBody` validates a body; a parameter the
 * schema does not know is refused by name, so that a misspelt filter is not read as no filter.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: unknown): z.infer<S> {
  const given = query !== null && typeof query === 'object' ? Object.keys(query) : [];
  const unknown = given.filter((k) => !(k in schema.shape)).slice(0, MAX_FIELDS);
  if (unknown.length) {
    throw new ApiError(
      'gateway',
      'INVALID_REQUEST',
      `unknown parameter(s): ${unknown.map((k) => echo(k)).join(', ')}`,
      {
        fields: unknown.map((k) => ({ field: echo(k), message: 'unknown parameter' })),
      },
    );
  }
  return parseBody(schema, query ?? {});
}
