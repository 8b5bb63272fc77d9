import type { FastifyPluginAsync } from 'fastify';
import { parse } from 'yaml';
import { validateManifest } from '../../api/index.js';
import { ApiError } from '../http/errors.js';
import type { OrchestratorDeps } from './app.js';

/**
 * `POST /api/v1/agents/validate`: an AgentConfig as YAML (`application/yaml`) or JSON; nothing is created.
 * An unparseable body is a 400; a parseable but invalid one is a 200 with `valid: false` and its errors.
 */
export const validateRoutes: FastifyPluginAsync<OrchestratorDeps> = async (app) => {
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parse(body as string, { maxAliasCount: 100 }));
    } catch (err) {
      done(new ApiError('plan', 'INVALID_REQUEST', `invalid YAML: ${(err as Error).message.split('\n')[0]}`), undefined);
    }
  });
  app.post('/api/v1/agents/validate', async (req) => {
    const result = validateManifest(req.body);
    if (result.valid && result.resource && result.resource.kind !== 'AgentConfig') {
      return { valid: false, errors: [{ field: 'kind', message: 'this endpoint validates AgentConfig documents' }], warnings: result.warnings };
    }
    return { valid: result.valid, errors: result.errors, warnings: result.warnings };
  });
};
