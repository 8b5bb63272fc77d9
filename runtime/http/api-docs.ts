import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { markPublicScope } from './route-auth.js';

/** Where the interactive reference lives; its own routes (assets, `/docs/json`) are under it. */
export const API_DOCS_PREFIX = '/docs';

export interface ApiDocsOptions {
  /** The runtime's OpenAPI document (api/gen/openapi.ts, the source of docs/openapi/). */
  document: Record<string, unknown>;
}

/**
 * `GET /openapi.json` (the document, serialized once) and `GET /docs` (Swagger UI, its assets served from the
 * @fastify/swagger-ui package: no CDN, works offline). Both public and cheap; `STEWARD_API_DOCS=false` leaves
 * them out. The UI plugin's routes cannot state a credential rule, so they are registered in a public scope.
 */
export const apiDocs: FastifyPluginAsync<ApiDocsOptions> = async (app, { document }) => {
  const text = JSON.stringify(document);
  app.get('/openapi.json', { config: { auth: { require: 'none' } } }, (_req, reply) => {
    void reply.type('application/json; charset=utf-8').send(text);
  });
  await app.register(async (scope: FastifyInstance) => {
    markPublicScope(scope);
    await scope.register(swagger, { mode: 'static', specification: { document: document as never } });
    // NB: the page reads the document from `/docs/json`, the same object (@fastify/swagger's static mode).
    await scope.register(swaggerUi, { routePrefix: API_DOCS_PREFIX, uiConfig: { deepLinking: true } });
  });
};
