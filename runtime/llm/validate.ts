import { DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, MAX_TOKENS_LIMIT } from './config.js';
import { LlmValidationError } from './errors.js';
import type { LlmMessage, LlmRequest, NormalizedRequest } from './types.js';

/** Longest conversation accepted in one call; the HTTP body limit bounds the text itself. */
export const MAX_MESSAGES = 1000;
const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant']);

export interface NormalizeDefaults {
  model: string;
  timeoutMs: number;
}

/**
 * Checks a request and fills the reference's defaults. Request objects often come straight from JSON, so
 * every field is checked at run time whatever its static type says.
 */
export function normalizeRequest(req: LlmRequest, defaults: NormalizeDefaults): NormalizedRequest {
  if (typeof req !== 'object' || req === null) throw new LlmValidationError('request', 'must be an object');
  return {
    model: checkModel(req.model, defaults.model),
    ...checkConversation(req),
    temperature: checkTemperature(req.temperature),
    maxTokens: checkMaxTokens(req.maxTokens),
    timeoutMs: checkTimeout(req.timeoutMs, defaults.timeoutMs),
  };
}

function checkModel(model: unknown, fallback: string): string {
  if (model === undefined) return fallback;
  if (typeof model !== 'string' || model.trim() === '' || model.length > 256) {
    throw new LlmValidationError('model', 'must be a non-empty string of at most 256 characters');
  }
  return model;
}

function checkTemperature(t: unknown): number {
  if (t === undefined) return DEFAULT_TEMPERATURE;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) {
    throw new LlmValidationError('temperature', 'must be a number from 0.0 to 1.0');
  }
  return t;
}

function checkMaxTokens(n: unknown): number {
  if (n === undefined) return DEFAULT_MAX_TOKENS;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_TOKENS_LIMIT) {
    throw new LlmValidationError('max_tokens', `must be an integer from 1 to ${MAX_TOKENS_LIMIT}`);
  }
  return n;
}

function checkTimeout(ms: unknown, fallback: number): number {
  if (ms === undefined) return fallback;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > 600_000) {
    throw new LlmValidationError('timeoutMs', 'must be an integer number of milliseconds from 1 to 600000');
  }
  return ms;
}

function checkConversation(req: LlmRequest): { system: string | null; messages: LlmMessage[] } {
  const systemParts: string[] = [];
  if (req.system !== undefined) {
    if (typeof req.system !== 'string') throw new LlmValidationError('system', 'must be a string');
    if (req.system.trim() !== '') systemParts.push(req.system);
  }
  if (req.messages !== undefined && req.prompt !== undefined) {
    throw new LlmValidationError('prompt', 'give either prompt or messages, not both');
  }
  const messages: LlmMessage[] = [];
  if (req.prompt !== undefined) {
    if (typeof req.prompt !== 'string' || req.prompt.trim() === '') {
      throw new LlmValidationError('prompt', 'must be a non-empty string');
    }
    messages.push({ role: 'user', content: req.prompt });
  } else if (req.messages !== undefined) {
    if (!Array.isArray(req.messages)) throw new LlmValidationError('messages', 'must be an array');
    if (req.messages.length > MAX_MESSAGES) {
      throw new LlmValidationError('messages', `at most ${MAX_MESSAGES} messages are accepted`);
    }
    req.messages.forEach((m: unknown, i) => {
      const field = `messages[${i}]`;
      if (typeof m !== 'object' || m === null) throw new LlmValidationError(field, 'must be an object');
      const { role, content } = m as Record<string, unknown>;
      if (typeof role !== 'string' || !ROLES.has(role)) {
        throw new LlmValidationError(`${field}.role`, 'must be system, user or assistant');
      }
      // NB: Anthropic and Bedrock reject empty text blocks, so an empty turn fails here, not at the provider.
      if (typeof content !== 'string' || content.trim() === '') {
        throw new LlmValidationError(`${field}.content`, 'must be a non-empty string');
      }
      if (role === 'system') systemParts.push(content);
      else messages.push({ role: role as 'user' | 'assistant', content });
    });
  } else {
    throw new LlmValidationError('prompt', 'a prompt or messages is required');
  }
  if (!messages.some((m) => m.role === 'user')) {
    throw new LlmValidationError('messages', 'at least one user message is required');
  }
  return { system: systemParts.length ? systemParts.join('\n\n') : null, messages };
}

/**
 * Joins consecutive turns of the same role. Bedrock's Converse API rejects them and Anthropic merges them
 * anyway; doing it here keeps both providers' behaviour the same.
 */
export function mergeConsecutiveTurns(messages: readonly LlmMessage[]): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content = `${last.content}\n\n${m.content}`;
    else out.push({ role: m.role, content: m.content });
  }
  return out;
}
