import { z } from 'zod';

/**
 * zod's JSON Schema of a body as zod returns it (`io: 'output'`: a non-passthrough object gets
 * `additionalProperties: false`), without the draft marker, which the compilers fastify uses (ajv,
 * fast-json-stringify) do not take. `unrepresentable: 'any'` writes a part JSON Schema cannot state as `{}`.
 */
export function outputJsonSchema(schema: z.ZodType, unrepresentable: 'any' | 'throw'): Record<string, unknown> {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: 'output', unrepresentable }) as Record<
    string,
    unknown
  >;
  return json;
}

/**
 * The JSON schema of a response body, for fastify's compiled serializer (fast-json-stringify): a hot route
 * answers through code generated for its shape instead of JSON.stringify. The zod schema in api/http stays the
 * one source of the shape; properties the schema does not name are not sent.
 */
export function responseSchema(schema: z.ZodType): Record<string, unknown> {
  return outputJsonSchema(schema, 'any');
}
