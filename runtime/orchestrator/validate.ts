import type { FastifyPluginAsync } from 'fastify';
import { validateManifest } from '../../api/index.js';
import { ApiError, echo } from '../http/errors.js';
import { documentValue, parseYamlDocuments, YamlLimitError } from '../source/yaml.js';
import type { OrchestratorDeps } from './app.js';

/** One YAML document within the limits of runtime/source/yaml.ts (size, nodes, nesting, aliases, no repeated key). */
function parseYamlBody(text: string): unknown {
  const { documents, lineOf } = parseYamlDocuments(text);
  if (documents.length !== 1) throw new YamlLimitError(`expected one YAML document, found ${documents.length}`);
  const doc = documents[0]!;
  const e = doc.errors[0];
  if (e) throw new YamlLimitError(e.message.split('\n')[0]!, e.linePos?.[0]?.line);
  return documentValue(doc, lineOf);
}

/**
 * `POST /api/v1/agents/validate`: an AgentConfig as YAML (`application/yaml`) or JSON; nothing is created.
 * An unparseable body (or one over the YAML limits) is a 400; a parseable but invalid one is a 200 with
 * `valid: false` and its errors.
 */
export const validateRoutes: FastifyPluginAsync<OrchestratorDeps> = async (app) => {
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseYamlBody(body as string));
    } catch (err) {
      const message = err instanceof YamlLimitError || err instanceof ReferenceError ? err.message : 'the YAML cannot be parsed';
      done(new ApiError('plan', 'INVALID_REQUEST', `invalid YAML: ${echo(message, 200)}`), undefined);
    }
  });
  app.post('/api/v1/agents/validate', { config: { auth: { require: 'any' } } }, async (req) => {
    const result = validateManifest(req.body);
    if (result.valid && result.resource && result.resource.kind !== 'AgentConfig') {
      return { valid: false, errors: [{ field: 'kind', message: 'this endpoint validates AgentConfig documents' }], warnings: result.warnings };
    }
    return { valid: result.valid, errors: result.errors, warnings: result.warnings };
  });
};
