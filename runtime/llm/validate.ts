import { DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, MAX_TOKENS_LIMIT } from './config.js';
import { LlmValidationError } from './errors.js';
import type {
  LlmMessage,
  LlmRequest,
  LlmResponseFormat,
  LlmTool,
  LlmToolCall,
  LlmToolChoice,
  NormalizedRequest,
} from './types.js';

/** Longest conversation accepted in one call; the HTTP body limit bounds the text itself. */
export const MAX_MESSAGES = 1000;
/** Most tools one request may offer (OpenAI's limit, the strictest of the providers). */
export const MAX_TOOLS = 128;
/** Tool and schema names: what every provider accepts. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

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
  const tools = checkTools(req.tools);
  const toolChoice = checkToolChoice(req.toolChoice, tools);
  const responseFormat = checkResponseFormat(req.responseFormat);
  return {
    model: checkModel(req.model, defaults.model),
    ...checkConversation(req),
    temperature: checkTemperature(req.temperature),
    maxTokens: checkMaxTokens(req.maxTokens),
    timeoutMs: checkTimeout(req.timeoutMs, defaults.timeoutMs),
    ...(tools ? { tools } : {}),
    ...(tools && toolChoice ? { toolChoice } : {}),
    ...(responseFormat ? { responseFormat } : {}),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkTools(tools: unknown): LlmTool[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw new LlmValidationError('tools', 'must be an array');
  if (tools.length > MAX_TOOLS) throw new LlmValidationError('tools', `at most ${MAX_TOOLS} tools are accepted`);
  if (tools.length === 0) return undefined;
  const names = new Set<string>();
  return tools.map((t: unknown, i) => {
    const field = `tools[${i}]`;
    if (!isObject(t)) throw new LlmValidationError(field, 'must be an object');
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
      throw new LlmValidationError(`${field}.name`, 'must be 1 to 64 letters, digits, _ or -');
    }
    if (names.has(t.name)) throw new LlmValidationError(`${field}.name`, `duplicate tool name "${t.name}"`);
    names.add(t.name);
    if (t.description !== undefined && typeof t.description !== 'string')
      throw new LlmValidationError(`${field}.description`, 'must be a string');
    if (t.parameters !== undefined && !isObject(t.parameters))
      throw new LlmValidationError(`${field}.parameters`, 'must be a JSON Schema object');
    return {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      ...(t.parameters !== undefined ? { parameters: t.parameters } : {}),
    };
  });
}

function checkToolChoice(choice: unknown, tools: LlmTool[] | undefined): LlmToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') {
    if (choice === 'required' && !tools) throw new LlmValidationError('toolChoice', 'required needs tools');
    return choice;
  }
  if (!isObject(choice) || typeof choice.name !== 'string') {
    throw new LlmValidationError('toolChoice', 'must be auto, none, required or { name }');
  }
  const name = choice.name;
  if (!tools?.some((t) => t.name === name))
    throw new LlmValidationError('toolChoice.name', `"${name}" is not one of the tools`);
  return { name };
}

function checkResponseFormat(format: unknown): NormalizedRequest['responseFormat'] {
  if (format === undefined) return undefined;
  if (!isObject(format)) throw new LlmValidationError('responseFormat', 'must be an object');
  const type = format.type as LlmResponseFormat['type'];
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type };
  if (type !== 'json_schema')
    throw new LlmValidationError('responseFormat.type', 'must be text, json_object or json_schema');
  if (typeof format.name !== 'string' || !TOOL_NAME.test(format.name)) {
    throw new LlmValidationError('responseFormat.name', 'must be 1 to 64 letters, digits, _ or -');
  }
  if (!isObject(format.schema)) throw new LlmValidationError('responseFormat.schema', 'must be a JSON Schema object');
  if (format.strict !== undefined && typeof format.strict !== 'boolean')
    throw new LlmValidationError('responseFormat.strict', 'must be a boolean');
  return {
    type,
    name: format.name,
    schema: format.schema,
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
  };
}

function checkToolCalls(calls: unknown, field: string): LlmToolCall[] {
  if (!Array.isArray(calls)) throw new LlmValidationError(field, 'must be an array');
  return calls.map((c: unknown, j) => {
    const f = `${field}[${j}]`;
    if (!isObject(c)) throw new LlmValidationError(f, 'must be an object');
    if (typeof c.id !== 'string' || c.id === '' || c.id.length > 256)
      throw new LlmValidationError(`${f}.id`, 'must be a non-empty string');
    if (typeof c.name !== 'string' || !TOOL_NAME.test(c.name))
      throw new LlmValidationError(`${f}.name`, 'must be 1 to 64 letters, digits, _ or -');
    if (typeof c.arguments !== 'string') throw new LlmValidationError(`${f}.arguments`, 'must be a string of JSON');
    return { id: c.id, name: c.name, arguments: c.arguments };
  });
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
      const { role, content, toolCalls, toolCallId } = m as Record<string, unknown>;
      if (typeof role !== 'string' || !ROLES.has(role)) {
        throw new LlmValidationError(`${field}.role`, 'must be system, user, assistant or tool');
      }
      const calls = toolCalls === undefined ? [] : checkToolCalls(toolCalls, `${field}.toolCalls`);
      if (calls.length && role !== 'assistant')
        throw new LlmValidationError(`${field}.toolCalls`, 'only an assistant message has tool calls');
      if (role === 'tool' && (typeof toolCallId !== 'string' || toolCallId === '')) {
        throw new LlmValidationError(`${field}.toolCallId`, 'a tool message needs the id of the call it answers');
      }
      if (role !== 'tool' && toolCallId !== undefined)
        throw new LlmValidationError(`${field}.toolCallId`, 'only a tool message has a toolCallId');
      // NB: Anthropic and Bedrock reject empty text blocks, so an empty turn fails here, not at the provider.
      // An assistant turn that only calls tools has no text, which every provider accepts.
      const mayBeEmpty = role === 'assistant' && calls.length > 0;
      if (typeof content !== 'string' || (!mayBeEmpty && content.trim() === '')) {
        throw new LlmValidationError(
          `${field}.content`,
          mayBeEmpty ? 'must be a string' : 'must be a non-empty string',
        );
      }
      if (role === 'system') systemParts.push(content);
      else if (role === 'tool') messages.push({ role, content, toolCallId: toolCallId as string });
      else if (calls.length) messages.push({ role: 'assistant', content, toolCalls: calls });
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

/** How a provider's content blocks hold text, so that {@link blockTurns} can join text across merged turns. */
export interface TextBlocks<B> {
  textOf(block: B): string | undefined;
  text(text: string): B;
}

/**
 * Our messages as a provider's turns of content blocks (`toBlocks` maps one message; tool results belong to
 * user turns). Consecutive turns of one role merge: Bedrock's Converse API rejects them and Anthropic merges
 * them anyway, so doing it here keeps both the same. Text after text joins with a blank line; the results of
 * parallel tool calls end up in one user turn.
 */
export function blockTurns<B>(
  messages: readonly LlmMessage[],
  toBlocks: (m: LlmMessage) => B[],
  blocks: TextBlocks<B>,
): { role: 'user' | 'assistant'; content: B[] }[] {
  const turns: { role: 'user' | 'assistant'; content: B[] }[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = toBlocks(m);
    const last = turns[turns.length - 1];
    if (last?.role !== role) {
      turns.push({ role, content });
      continue;
    }
    const before = last.content.length ? blocks.textOf(last.content[last.content.length - 1]!) : undefined;
    const after = content.length ? blocks.textOf(content[0]!) : undefined;
    if (before !== undefined && after !== undefined) {
      last.content[last.content.length - 1] = blocks.text(`${before}\n\n${after}`);
      content.shift();
    }
    last.content.push(...content);
  }
  return turns;
}
