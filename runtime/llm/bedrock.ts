import { BedrockRuntimeClient, ConverseCommand, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { isConnectionFailure } from './call.js';
import type { ProviderConfig } from './config.js';
import { LlmProviderError, LlmTimeoutError, codeForStatus, type LlmError, type LlmProviderErrorCode } from './errors.js';
import { finishFrom, makeProvider, sumOf, usageOf, type Adapter } from './provider.js';
import type { FinishReason, LlmProvider } from './types.js';
import { mergeConsecutiveTurns } from './validate.js';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  tool_use: 'tool_use',
};

/** Bedrock exception names whose meaning is clearer than their status. */
const BY_NAME: Record<string, LlmProviderErrorCode> = {
  ThrottlingException: 'RATE_LIMITED',
  ServiceQuotaExceededException: 'RATE_LIMITED',
  ServiceUnavailableException: 'OVERLOADED',
  ModelNotReadyException: 'OVERLOADED',
  ModelTimeoutException: 'SERVER_ERROR',
  AccessDeniedException: 'FORBIDDEN',
  UnrecognizedClientException: 'UNAUTHORIZED',
  ResourceNotFoundException: 'NOT_FOUND',
  ValidationException: 'BAD_REQUEST',
};

/** AWS Bedrock through the Converse API (`POST /model/{modelId}/converse`), SigV4 or a Bedrock API key. */
export function createBedrockProvider(config: ProviderConfig): LlmProvider {
  const clientConfig: BedrockRuntimeClientConfig = {
    region: config.region,
    endpoint: config.endpoint,
    // NB: one attempt per call; retries and the deadline are ours (call.ts).
    maxAttempts: 1,
  };
  if (config.apiKey) {
    clientConfig.token = { token: config.apiKey };
    clientConfig.authSchemePreference = ['httpBearerAuth'];
  } else if (config.awsCredentials) {
    clientConfig.credentials = { ...config.awsCredentials };
  } // else: the AWS default chain (IRSA web identity, instance role), which is how pods get credentials.
  const client = new BedrockRuntimeClient(clientConfig);
  const adapter: Adapter = {
    async send(req, signal) {
      const res = await client.send(
        new ConverseCommand({
          modelId: req.model,
          messages: mergeConsecutiveTurns(req.messages).map((m) => ({ role: m.role as 'user' | 'assistant', content: [{ text: m.content }] })),
          ...(req.system ? { system: [{ text: req.system }] } : {}),
          inferenceConfig: { maxTokens: req.maxTokens, temperature: req.temperature },
        }),
        { abortSignal: signal },
      );
      const content = typeof res === 'object' && res !== null ? res.output?.message?.content : undefined;
      if (!Array.isArray(content)) {
        throw new LlmProviderError(config.name ?? config.type, 'INVALID_RESPONSE', 'the answer has no output message');
      }
      const u = res.usage;
      const raw = res.stopReason ?? null;
      return {
        text: content.map((block) => block.text ?? '').join(''),
        // NB: Converse does not echo the model; the requested id is the truthful answer.
        model: req.model,
        usage: usageOf(sumOf(u?.inputTokens, u?.cacheReadInputTokens, u?.cacheWriteInputTokens), u?.outputTokens),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    classify: classifyBedrockError,
    close: async () => client.destroy(),
  };
  return makeProvider(config, adapter);
}

function classifyBedrockError(provider: string, err: unknown): LlmError {
  if (err instanceof LlmProviderError) return err;
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; $response?: { headers?: Record<string, string> } };
  const status = e?.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 400) {
    const code = (e.name && Object.hasOwn(BY_NAME, e.name) ? BY_NAME[e.name] : undefined) ?? codeForStatus(status);
    const retryAfter = e.$response?.headers?.['retry-after'];
    return new LlmProviderError(provider, code, `provider answered ${status} ${e.name ?? ''}: ${e.message ?? ''}`.trim(), {
      status,
      retryAfterSec: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
      cause: err,
    });
  }
  if (e?.name === 'TimeoutError') return new LlmTimeoutError(provider, 0, { cause: err });
  if (isConnectionFailure(err)) return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${e?.message ?? String(err)}`, { cause: err });
}
