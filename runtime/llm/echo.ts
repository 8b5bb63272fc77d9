import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { makeProvider, usageOf, type Adapter } from './provider.js';
import type { LlmProvider } from './types.js';

/** Every echo answer starts with this, so nobody mistakes it for a model's output. */
export const ECHO_NOTICE = '[echo provider: development stand-in, not a language model]';

/**
 * A provider that answers from the prompt itself, for development and demos when no model is configured.
 * "Tokens" are whitespace-separated words, which is stated in the notice rather than passed off as a count
 * from a tokenizer.
 */
export function createEchoProvider(config: ProviderConfig): LlmProvider {
  const adapter: Adapter = {
    async send(req) {
      const lastUser = [...req.messages].reverse().find((m) => m.role === 'user')!;
      const words = lastUser.content.trim().split(/\s+/);
      const promptWords = req.messages.reduce((n, m) => n + m.content.trim().split(/\s+/).length, 0)
        + (req.system ? req.system.trim().split(/\s+/).length : 0);
      const noticeWords = ECHO_NOTICE.split(' ').length + 2;
      const room = Math.max(0, req.maxTokens - noticeWords);
      const truncated = words.length > room;
      const echoed = words.slice(0, room).join(' ');
      const text = `${ECHO_NOTICE} You said: ${echoed}`.trimEnd();
      return {
        text,
        model: req.model,
        usage: usageOf(promptWords, Math.min(req.maxTokens, noticeWords + Math.min(words.length, room))),
        finishReason: truncated ? 'length' : 'stop',
        rawFinishReason: truncated ? 'length' : 'stop',
      };
    },
    // Nothing in send() can fail after validation; anything that does is a bug, reported as such.
    classify: (provider, err) => new LlmProviderError(provider, 'UNKNOWN', 'echo provider failed', { cause: err }),
  };
  return makeProvider(config, adapter);
}
