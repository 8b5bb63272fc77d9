import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type ConverseCommandInput,
  type ConverseStreamOutput,
  type Message,
  type TokenUsage,
  type ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { isConnectionFailure } from './call.js';
import type { ProviderConfig } from './config.js';
import {
  LlmProviderError,
  LlmTimeoutError,
  codeForStatus,
  type LlmError,
  type LlmProviderErrorCode,
} from './errors.js';
import { argumentsObject, finishFrom, makeProvider, sumOf, unsupported, usageOf, type Adapter } from './provider.js';
import { streamEndedEarly, upstream, type StreamDecoder, type StreamPiece } from './stream.js';
import type { FinishReason, LlmMessage, LlmProvider, NormalizedRequest } from './types.js';
import { blockTurns } from './validate.js';

/** The SDK's JSON document type (from @smithy/types, which is not our dependency). */
type DocumentType = NonNullable<ToolUseBlock['input']>;

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

/**
 * AWS Bedrock through the Converse API (`POST /model/{modelId}/converse`, `.../converse-stream`), SigV4 or a
 * Bedrock API key. Tools map to `toolConfig` (no `toolChoice: none`); json_schema to `outputConfig.textFormat`.
 */
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
  const name = config.name ?? config.type;
  const adapter: Adapter = {
    check(req, provider) {
      if (req.toolChoice === 'none') throw unsupported(provider, 'toolChoice', 'toolChoice none');
      // Structured output (`outputConfig.textFormat`) takes a schema only; there is no "any JSON object" mode.
      if (req.responseFormat?.type === 'json_object')
        throw unsupported(provider, 'responseFormat.type', 'json_object (use json_schema)');
    },
    async send(req, signal) {
      const res = await client.send(new ConverseCommand(wireRequest(name, req)), { abortSignal: signal });
      const content = typeof res === 'object' && res !== null ? res.output?.message?.content : undefined;
      if (!Array.isArray(content)) {
        throw new LlmProviderError(name, 'INVALID_RESPONSE', 'the answer has no output message');
      }
      const u = res.usage;
      const raw = res.stopReason ?? null;
      return {
        text: content.map((block) => block.text ?? '').join(''),
        toolCalls: content.flatMap((b) =>
          b.toolUse
            ? [
                {
                  id: b.toolUse.toolUseId ?? '',
                  name: b.toolUse.name ?? '',
                  arguments: JSON.stringify(b.toolUse.input ?? {}),
                },
              ]
            : [],
        ),
        // NB: Converse does not echo the model; the requested id is the truthful answer.
        model: req.model,
        usage: usageOf(sumOf(u?.inputTokens, u?.cacheReadInputTokens, u?.cacheWriteInputTokens), u?.outputTokens),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    async openStream(req, signal) {
      const res = await client.send(new ConverseStreamCommand(wireRequest(name, req)), { abortSignal: signal });
      if (!res.stream) throw new LlmProviderError(name, 'INVALID_RESPONSE', 'the answer has no event stream');
      return upstream(res.stream, eventDecoder(name));
    },
    classify: classifyBedrockError,
    close: async () => client.destroy(),
  };
  return makeProvider(config, adapter);
}

function wireRequest(provider: string, req: NormalizedRequest): ConverseCommandInput {
  const choice = req.toolChoice;
  const format = req.responseFormat;
  return {
    modelId: req.model,
    messages: wireMessages(provider, req.messages),
    ...(req.system ? { system: [{ text: req.system }] } : {}),
    inferenceConfig: { maxTokens: req.maxTokens, temperature: req.temperature },
    ...(req.tools
      ? {
          toolConfig: {
            tools: req.tools.map((t) => ({
              toolSpec: {
                name: t.name,
                description: t.description,
                inputSchema: { json: (t.parameters ?? { type: 'object', properties: {} }) as DocumentType },
              },
            })),
            ...(choice === 'required'
              ? { toolChoice: { any: {} } }
              : typeof choice === 'object'
                ? { toolChoice: { tool: { name: choice.name } } }
                : {}),
          },
        }
      : {}),
    ...(format?.type === 'json_schema'
      ? {
          outputConfig: {
            textFormat: {
              type: 'json_schema',
              structure: { jsonSchema: { name: format.name, schema: JSON.stringify(format.schema) } },
            },
          },
        }
      : {}),
  };
}

/** Our turns as Converse content blocks: tool calls are `toolUse` blocks, tool results `toolResult` blocks of a user turn. */
function wireMessages(provider: string, messages: readonly LlmMessage[]): Message[] {
  const toBlocks = (m: LlmMessage): ContentBlock[] =>
    m.role === 'tool'
      ? [{ toolResult: { toolUseId: m.toolCallId!, content: [{ text: m.content }] } }]
      : [
          ...(m.content !== '' ? [{ text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({
            toolUse: { toolUseId: c.id, name: c.name, input: argumentsObject(provider, c) as DocumentType },
          })),
        ];
  return blockTurns(messages, toBlocks, { textOf: (b) => b.text, text: (text) => ({ text }) });
}

/**
 * ConverseStream events: `contentBlockStart` opens a tool use (id, name), `contentBlockDelta` carries text or
 * tool input JSON, `messageStop` the stop reason and `metadata` the counts. Tool calls are numbered in their
 * order, apart from the content block index, which counts text blocks too.
 */
function eventDecoder(provider: string): StreamDecoder<ConverseStreamOutput> {
  let raw: string | null | undefined;
  let usage: TokenUsage | undefined;
  const tools = new Map<number, { index: number; argChars: number }>();
  return {
    push(event): StreamPiece[] {
      if (event.contentBlockStart?.start?.toolUse) {
        const { toolUseId, name } = event.contentBlockStart.start.toolUse;
        const tool = { index: tools.size, argChars: 0 };
        tools.set(event.contentBlockStart.contentBlockIndex ?? -1, tool);
        return [{ type: 'tool_call', index: tool.index, id: toolUseId ?? '', name: name ?? '', arguments: '' }];
      }
      if (event.contentBlockDelta?.delta) {
        const { delta, contentBlockIndex } = event.contentBlockDelta;
        if (delta.text) return [{ type: 'text', text: delta.text }];
        const tool = tools.get(contentBlockIndex ?? -1);
        if (!tool || !delta.toolUse?.input) return [];
        tool.argChars += delta.toolUse.input.length;
        return [{ type: 'tool_call', index: tool.index, arguments: delta.toolUse.input }];
      }
      if (event.contentBlockStop) {
        const tool = tools.get(event.contentBlockStop.contentBlockIndex ?? -1);
        return tool && tool.argChars === 0 ? [{ type: 'tool_call', index: tool.index, arguments: '{}' }] : [];
      }
      if (event.messageStop) raw = event.messageStop.stopReason ?? null;
      if (event.metadata?.usage) usage = event.metadata.usage;
      return [];
    },
    end() {
      if (raw === undefined) throw streamEndedEarly(provider);
      return {
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
        promptTokens: usage
          ? sumOf(usage.inputTokens, usage.cacheReadInputTokens, usage.cacheWriteInputTokens)
          : undefined,
        completionTokens: usage?.outputTokens,
      };
    },
  };
}

function classifyBedrockError(provider: string, err: unknown): LlmError {
  if (err instanceof LlmProviderError) return err;
  const e = err as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    $response?: { headers?: Record<string, string> };
  };
  const status = e?.$metadata?.httpStatusCode;
  // NB: an exception inside an event stream arrives after the 200, so it has a name but no status of its own.
  const byName = e?.name && Object.hasOwn(BY_NAME, e.name) ? BY_NAME[e.name] : undefined;
  if (byName && typeof status !== 'number')
    return new LlmProviderError(provider, byName, `provider failed mid-stream: ${e.name}: ${e.message ?? ''}`, {
      cause: err,
    });
  if (typeof status === 'number' && status >= 400) {
    const code = (e.name && Object.hasOwn(BY_NAME, e.name) ? BY_NAME[e.name] : undefined) ?? codeForStatus(status);
    const retryAfter = e.$response?.headers?.['retry-after'];
    return new LlmProviderError(
      provider,
      code,
      `provider answered ${status} ${e.name ?? ''}: ${e.message ?? ''}`.trim(),
      {
        status,
        retryAfterSec: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
        cause: err,
      },
    );
  }
  if (e?.name === 'TimeoutError') return new LlmTimeoutError(provider, 0, { cause: err });
  if (isConnectionFailure(err))
    return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${e?.message ?? String(err)}`, { cause: err });
}
