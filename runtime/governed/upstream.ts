import { ApiError, echo } from '../http/errors.js';
import type { LlmRequest, LlmRouter } from '../llm/index.js';
import type { Upstream } from './types.js';

/**
 * A provider of the router as a governed call's upstream. Throws 503 PROVIDER_NOT_CONFIGURED when none of that name
 * (or none at all) is configured; the pipeline asks only once the input policies passed.
 */
export function llmUpstream(
  router: LlmRouter | undefined,
  request: Omit<LlmRequest, 'signal'> & { provider?: string },
): Upstream {
  if (!router?.hasProvider(request.provider)) {
    throw new ApiError(
      'gateway',
      'PROVIDER_NOT_CONFIGURED',
      request.provider
        ? `no LLM provider named ${echo(request.provider)} is configured`
        : 'no LLM provider is configured; set OPENAI_API_KEY, ANTHROPIC_API_KEY, STEWARD_BEDROCK_REGION or OLLAMA_HOST',
    );
  }
  const target = router.get(request.provider);
  return {
    provider: target.name,
    model: request.model ?? target.defaultModel,
    complete: (signal) => router.complete({ ...request, signal }),
    stream: (signal) => router.stream({ ...request, signal }),
  };
}
