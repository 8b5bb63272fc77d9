import { z } from 'zod';
import type { RouteDoc } from '../http/routes.js';
import { GATEWAY_ROUTES, ORCHESTRATOR_ROUTES } from '../http/routes.js';

function jsonSchema(schema: z.ZodTypeAny, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

/** The credentials the runtimes accept (runtime/auth/authenticate.ts), as OpenAPI security schemes. */
export const SECURITY_SCHEMES = {
  LicenseKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-License-Key',
    description: "The organization's license key: a key of a registered License (admin: also grants /api/clients).",
  },
  ApiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A client API key from POST /api/clients: `Authorization: Bearer <api_key>`.',
  },
  ClientCredentials: {
    type: 'http',
    scheme: 'basic',
    description: 'A client id (or name) and its API key: `Authorization: Basic base64(clientId:apiKey)`.',
  },
  LegacyClientSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Client-Secret',
    description:
      'Deprecated: a client API key in X-Client-Secret, optionally with X-Client-ID; answers carry Deprecation and Sunset headers, and after the sunset (STEWARD_LEGACY_CREDENTIALS_SUNSET) the pair is refused.',
  },
  OperatorToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The operator token (STEWARD_METRICS_TOKEN) for process-wide endpoints; tenant credentials do not grant them.',
  },
} as const;

const SECURITY: Record<RouteDoc['auth'], Record<string, string[]>[]> = {
  none: [],
  any: [{ LicenseKey: [] }, { ApiKey: [] }, { ClientCredentials: [] }, { LegacyClientSecret: [] }],
  'license-key': [{ LicenseKey: [] }],
  operator: [{ OperatorToken: [] }],
};

const DESCRIPTION =
  'Generated from api/http/routes.ts by `npm run gen` (docs/openapi/) and served by the running process at GET /openapi.json and GET /docs. ' +
  'In community mode (no License configured) credentials are not needed; otherwise each operation lists the credentials it accepts. ' +
  'Every error answers with a code listed in docs/errors.md.';

/** A query schema's keys as OpenAPI parameters (`in: query`), each with its JSON Schema and description. */
function queryParameters(query: z.ZodObject): Record<string, unknown>[] {
  const s = jsonSchema(query, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: s.required?.includes(name) ?? false,
    ...(typeof description === 'string' ? { description } : {}),
    schema,
  }));
}

/** Builds an OpenAPI 3.1 document for one runtime from its route table. Pure; no I/O. */
export function buildOpenApi(title: string, version: string, routes: RouteDoc[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params: Record<string, unknown>[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (r.query) params.push(...queryParameters(r.query));
    const content: Record<string, unknown> = {};
    if (r.request) {
      content['application/json'] = { schema: jsonSchema(r.request, 'input') };
      if (r.requestYaml) content['application/yaml'] = { schema: jsonSchema(r.request, 'input') };
    }
    const errorBody = { content: { 'application/json': { schema: jsonSchema(r.error, 'output') } } };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      security: SECURITY[r.auth],
      ...(params.length ? { parameters: params } : {}),
      ...(r.request ? { requestBody: { required: true, content } } : {}),
      responses: {
        [String(r.status ?? 200)]: {
          description: 'success',
          content: { [r.responseType ?? 'application/json']: { schema: jsonSchema(r.response, 'output') } },
        },
        default: { description: 'error (see docs/errors.md)', ...errorBody },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title, version, description: DESCRIPTION },
    security: SECURITY.any,
    paths,
    components: { securitySchemes: SECURITY_SCHEMES },
  };
}

export const GATEWAY_API_TITLE = 'Steward Agent gateway';
export const ORCHESTRATOR_API_TITLE = 'Steward Orchestrator';

const built = new Map<string, Record<string, unknown>>();
function memo(key: string, build: () => Record<string, unknown>): Record<string, unknown> {
  let doc = built.get(key);
  if (!doc) built.set(key, (doc = build()));
  return doc;
}

/** The gateway's document (what docs/openapi/gateway.json holds for this version); built once per version. */
export function gatewayOpenApi(version: string): Record<string, unknown> {
  return memo(`gateway\u0000${version}`, () => buildOpenApi(GATEWAY_API_TITLE, version, GATEWAY_ROUTES));
}

/** The orchestrator's document (docs/openapi/orchestrator.json for this version); built once per version. */
export function orchestratorOpenApi(version: string): Record<string, unknown> {
  return memo(`orchestrator\u0000${version}`, () => buildOpenApi(ORCHESTRATOR_API_TITLE, version, ORCHESTRATOR_ROUTES));
}
