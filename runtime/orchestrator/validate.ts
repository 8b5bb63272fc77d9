import type { FastifyPluginAsync } from 'fastify';
import { validateManifest } from '../../api/index.js';
import { ApiError, echo } from '../http/errors.js';
import {
  DEFAULT_YAML_LIMITS,
  documentValue,
  parseYamlDocuments,
  YamlLimitError,
  type YamlLimits,
} from '../source/yaml.js';
import type { OrchestratorDeps } from './app.js';

/**
 * Largest body the endpoint reads: an AgentConfig is a few KiB. NB: parsing runs on the event loop (~0.13 ms per
 * KiB of YAML here), so the bound keeps one request from stalling the others (a 289 KB body took 26-77 ms).
 */
export const VALIDATE_BODY_LIMIT_BYTES = 64 * 1024;

/** One AgentConfig: far fewer nodes than a folder of manifests. */
const VALIDATE_YAML_LIMITS: Readonly<YamlLimits> = Object.freeze({
  ...DEFAULT_YAML_LIMITS,
  maxChars: VALIDATE_BODY_LIMIT_BYTES,
  maxNodes: 2_000,
});

/** One YAML document within the limits of runtime/source/yaml.ts (size, nodes, nesting, aliases, no repeated key). */
function parseYamlBody(text: string): unknown {
  const { documents, lineOf } = parseYamlDocuments(text, VALIDATE_YAML_LIMITS);
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
  app.addContentTypeParser(
    ['application/yaml', 'application/x-yaml', 'text/yaml'],
    { parseAs: 'string' },
    (_req, body, done) => {
      try {
        done(null, parseYamlBody(body as string));
      } catch (err) {
        const message =
          err instanceof YamlLimitError || err instanceof ReferenceError ? err.message : 'the YAML cannot be parsed';
        done(new ApiError('plan', 'INVALID_REQUEST', `invalid YAML: ${echo(message, 200)}`), undefined);
      }
    },
  );
  app.post(
    '/api/v1/agents/validate',
    { bodyLimit: VALIDATE_BODY_LIMIT_BYTES, config: { auth: { require: 'any' } } },
    async (req) => {
      const result = validateManifest(req.body);
      if (result.valid && result.resource && result.resource.kind !== 'AgentConfig') {
        return {
          valid: false,
          errors: [{ field: 'kind', message: 'this endpoint validates AgentConfig documents' }],
          warnings: result.warnings,
        };
      }
      return { valid: result.valid, errors: result.errors, warnings: result.warnings };
    },
  );
};
