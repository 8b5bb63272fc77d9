import { Ollama } from 'ollama';
import { isConnectionFailure } from './call.js';
import type { ProviderConfig } from './config.js';
import { LlmProviderError, codeForStatus, parseRetryAfterSec, type LlmError } from './errors.js';
import { finishFrom, makeProvider, usageOf, type Adapter } from './provider.js';
import type { FinishReason, LlmProvider } from './types.js';

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length' };

/** Ollama chat (`POST {endpoint}/api/chat`, not streamed). */
export function createOllamaProvider(config: ProviderConfig): LlmProvider {
  const host = config.endpoint ?? OLLAMA_DEFAULT_HOST;
  const headers = config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : undefined;
  const adapter: Adapter = {
    async send(req, signal) {
      // NB: the SDK passes no signal on non-streamed calls; a client per call whose fetch carries ours is how
      // the deadline reaches the socket. Construction is a few property writes.
      // It also keeps the answer's Retry-After, which the SDK's ResponseError drops.
      let retryAfter: string | null = null;
      const client = new Ollama({
        host,
        headers,
        fetch: async (input, init) => {
          const answer = await fetch(input, { ...init, signal });
          retryAfter = answer.headers.get('retry-after');
          return answer;
        },
      });
      const messages = req.system ? [{ role: 'system', content: req.system }, ...req.messages] : req.messages;
      const res = await client
        .chat({ model: req.model, messages, stream: false, options: { temperature: req.temperature, num_predict: req.maxTokens } })
        .catch((err: unknown) => {
          throw classifyOllamaError(config.name ?? config.type, err, parseRetryAfterSec(retryAfter));
        });
      if (typeof res !== 'object' || res === null || typeof res.message?.content !== 'string') {
        throw new LlmProviderError(config.name ?? config.type, 'INVALID_RESPONSE', 'the answer has no message');
      }
      const raw = res.done_reason ?? null;
      return {
        text: res.message.content,
        model: res.model || req.model,
        // NB: Ollama omits prompt_eval_count when the whole prompt came from its cache; that counts as 0.
        usage: usageOf(res.prompt_eval_count, res.eval_count),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    classify: (provider, err) => classifyOllamaError(provider, err),
  };
  return makeProvider(config, adapter);
}

function classifyOllamaError(provider: string, err: unknown, retryAfterSec?: number): LlmError {
  if (err instanceof LlmProviderError) return err;
  // The SDK's ResponseError is not exported; it is recognised by its name and status field.
  const e = err as { name?: string; status_code?: unknown; message?: string };
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') {
    return new LlmProviderError(provider, codeForStatus(e.status_code), `provider answered ${e.status_code}: ${e.message}`, {
      status: e.status_code,
      retryAfterSec,
      cause: err,
    });
  }
  if (isConnectionFailure(err)) return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  if (err instanceof SyntaxError) return new LlmProviderError(provider, 'INVALID_RESPONSE', 'the answer is not JSON', { cause: err });
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${e?.message ?? String(err)}`, { cause: err });
}
