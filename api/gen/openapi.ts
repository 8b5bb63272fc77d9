import { z } from 'zod';
import type { RouteDoc } from '../http/routes.js';

function jsonSchema(schema: z.ZodTypeAny, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

/** Builds an OpenAPI 3.1 document for one runtime from its route table. Pure; no I/O. */
export function buildOpenApi(title: string, version: string, routes: RouteDoc[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const content: Record<string, unknown> = {};
    if (r.request) {
      content['application/json'] = { schema: jsonSchema(r.request, 'input') };
      if (r.requestYaml) content['application/yaml'] = { schema: jsonSchema(r.request, 'input') };
    }
    const errorBody = { content: { 'application/json': { schema: jsonSchema(r.error, 'output') } } };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      ...(params.length ? { parameters: params } : {}),
      ...(r.request ? { requestBody: { required: true, content } } : {}),
      responses: {
        [String(r.status ?? 200)]: {
          description: 'success',
          content: { 'application/json': { schema: jsonSchema(r.response, 'output') } },
        },
        default: { description: 'error (see docs/errors.md)', ...errorBody },
      },
    };
  }
  return { openapi: '3.1.0', info: { title, version }, paths };
}
