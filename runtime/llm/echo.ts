import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { makeProvider, unsupported, usageOf, type Adapter, type AdapterResult } from './provider.js';
import { upstream } from './stream.js';
import type { LlmProvider, NormalizedRequest } from './types.js';

/** Every echo answer starts with this, so nobody mistakes it for a model's output. */
export const ECHO_NOTICE = '[echo provider: development stand-in, not a language model]';

/**
 * A provider that answers from the prompt itself, for development and demos when no model is configured.
 * "Tokens" are whitespace-separated words, which is stated in the notice rather than passed off as a count
 * from a tokenizer. It streams its answer a word at a time and offers no tools or JSON formats.
 */
export function createEchoProvider(config: ProviderConfig): LlmProvider {
  const adapter: Adapter = {
    check(req, provider) {
      if (req.tools) throw unsupported(provider, 'tools', 'tools');
      if (req.responseFormat) throw unsupported(provider, 'responseFormat', req.responseFormat.type);
    },
    send: async (req) => answer(req),
    async openStream(req, signal) {
      const res = answer(req);
      return upstream(words(res.text, signal), {
        push: (text: string) => [{ type: 'text', text }],
        end: () => ({
          model: res.model,
          finishReason: res.finishReason,
          rawFinishReason: res.rawFinishReason,
          promptTokens: res.usage.promptTokens,
          completionTokens: res.usage.completionTokens,
        }),
      });
    },
    // Nothing in send() can fail after validation; anything that does is a bug, reported as such.
    classify: (provider, err) => new LlmProviderError(provider, 'UNKNOWN', 'echo provider failed', { cause: err }),
  };
  return makeProvider(config, adapter);
}

function answer(req: NormalizedRequest): AdapterResult {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user')!;
  const words = lastUser.content.trim().split(/\s+/);
  const promptWords =
    req.messages.reduce((n, m) => n + m.content.trim().split(/\s+/).length, 0) +
    (req.system ? req.system.trim().split(/\s+/).length : 0);
  const noticeWords = ECHO_NOTICE.split(' ').length + 2;
  const room = Math.max(0, req.maxTokens - noticeWords);
  const truncated = words.length > room;
  const echoed = words.slice(0, room).join(' ');
  const text = `${ECHO_NOTICE} You said: ${echoed}`.trimEnd();
  return {
    text,
    toolCalls: [],
    model: req.model,
    usage: usageOf(promptWords, Math.min(req.maxTokens, noticeWords + Math.min(words.length, room))),
    finishReason: truncated ? 'length' : 'stop',
    rawFinishReason: truncated ? 'length' : 'stop',
  };
}

/** The text a word (with its following space) at a time, one event-loop turn apart, as a model would stream it. */
async function* words(text: string, signal: AbortSignal): AsyncGenerator<string> {
  for (const word of text.match(/\S+\s*/g) ?? []) {
    await new Promise((resolve) => setImmediate(resolve));
    signal.throwIfAborted();
    yield word;
  }
}
