import { z } from 'zod';

/**
 * The JSON schema of a response body, for fastify's compiled serializer (fast-json-stringify): a hot route
 * answers through code generated for its shape instead of JSON.stringify. The zod schema in api/http stays
 * the one source of the shape; properties the schema does not name are not sent.
 */
export function responseSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}
