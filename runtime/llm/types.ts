/** The provider kinds Steward talks to. `echo` is a development stand-in, never a model. */
export type LlmProviderType = 'openai' | 'anthropic' | 'aws-bedrock' | 'ollama' | 'echo';

export type LlmRole = 'system' | 'user' | 'assistant' | 'tool';

/** A function call the model asked for. */
export interface LlmToolCall {
  /** The provider's id of the call; a `tool` message answers it through `toolCallId`. */
  id: string;
  name: string;
  /** JSON text, as the model wrote it */
  arguments: string;
}

export interface LlmMessage {
  role: LlmRole;
  /** May be empty only on an assistant turn that has `toolCalls`. */
  content: string;
  /** assistant turns: the tool calls the model made */
  toolCalls?: readonly LlmToolCall[];
  /** tool turns: which call this is the result of */
  toolCallId?: string;
}

/** A function the model may call. */
export interface LlmTool {
  /** `^[a-zA-Z0-9_-]{1,64}$` */
  name: string;
  description?: string;
  /** JSON Schema of the arguments */
  parameters?: Record<string, unknown>;
}

/** `required`: some tool must be called; `{ name }`: that tool must be called. */
export type LlmToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The shape of the answer's text. Providers without structured output refuse the JSON forms (LlmValidationError). */
export type LlmResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/**
 * One completion call. Give either `messages` or `prompt` (a single user turn), not both.
 * Unset fields take the reference's defaults: temperature 0.7, max tokens 500.
 */
export interface LlmRequest {
  /** Overrides the provider's configured model. */
  model?: string;
  messages?: readonly LlmMessage[];
  prompt?: string;
  /** System instruction; with `messages` it is prepended to any system messages. */
  system?: string;
  /**
   * 0.0 to 1.0. @default 0.7
   * Validated for every provider; not sent to Anthropic, whose current API version refuses sampling parameters.
   */
  temperature?: number;
  /** Integer ≥ 1; the completion's token budget. @default 500 */
  maxTokens?: number;
  /** Functions the model may call (at most 128). A provider that cannot offer tools refuses the request. */
  tools?: readonly LlmTool[];
  /** Needs `tools`. @default 'auto' */
  toolChoice?: LlmToolChoice;
  responseFormat?: LlmResponseFormat;
  /**
   * `complete()`: deadline for the whole call, retries included. `stream()`: deadline until the provider
   * accepts the request (retries included), then again for each gap between two events.
   * Overrides the provider's `timeoutMs`.
   */
  timeoutMs?: number;
  /** Caller cancellation (for example the client disconnected). */
  signal?: AbortSignal;
}

/** Why generation stopped, normalised across providers; `rawFinishReason` keeps the provider's word. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_use' | 'other';

export interface LlmUsage {
  /** Input tokens, cached input included (what the provider bills as input). */
  promptTokens: number;
  completionTokens: number;
  /** promptTokens + completionTokens. */
  totalTokens: number;
}

export interface LlmResponse {
  text: string;
  /** The calls the model asked for, in its order; empty when none. */
  toolCalls: LlmToolCall[];
  /** The model that answered, as the provider reports it (the requested one when it does not say). */
  model: string;
  /** The configured provider name (which may differ from its type). */
  provider: string;
  usage: LlmUsage;
  /** Wall time of the call as seen by Steward, retries included. */
  latencyMs: number;
  finishReason: FinishReason;
  rawFinishReason: string | null;
}

/** One piece of a streamed answer. */
export type LlmStreamEvent =
  | { type: 'text'; text: string }
  /** the first event of a call index carries id and name; later ones only argument text */
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments: string }
  | {
      type: 'done';
      model: string;
      finishReason: FinishReason;
      rawFinishReason: string | null;
      usage: LlmUsage;
      /**
       * false: the provider sent no counts and usage is Steward's estimate (a count the provider left out is
       * estimated even when it sent the other): ceil(characters / 4) of each text, summed. Prompt: the system
       * text, every message's content and tool-call arguments, the tool definitions as JSON; completion: the
       * streamed text, and each tool call's arguments.
       */
      usageReported: boolean;
    };

/**
 * A streamed answer, iterable once. Iteration yields `text` and `tool_call` events and ends with exactly one
 * `done`; a failure throws a typed LlmError from the iterator. Leaving the loop early (`break`) or aborting the
 * request's `signal` aborts the upstream request.
 */
export interface LlmStream extends AsyncIterable<LlmStreamEvent> {
  /** configured provider name */
  readonly provider: string;
  /** the model requested (the `done` event has the one that answered) */
  readonly model: string;
}

export interface LlmProvider {
  /** The configured name; the router picks providers by it. */
  readonly name: string;
  readonly type: LlmProviderType;
  /** The model used when a request names none. */
  readonly defaultModel: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
  /**
   * Starts a streamed answer. Resolves once the provider accepted the request (HTTP 2xx and headers); rejects
   * before that with the errors `complete()` throws. Retryable failures are retried only before acceptance.
   * `timeoutMs` bounds the time to acceptance and then each idle gap between events (LlmTimeoutError).
   */
  stream(request: LlmRequest): Promise<LlmStream>;
  /** Releases sockets (the Bedrock client keeps an HTTP/2 session open). */
  close(): Promise<void>;
}

/** A request after validation and defaults: what each adapter maps onto its wire format. */
export interface NormalizedRequest {
  model: string;
  /** System text gathered from `system` and system-role messages, or null. */
  system: string | null;
  /** The conversation without system messages; never empty. */
  messages: LlmMessage[];
  /** Present only when the request has tools (then never empty). */
  tools?: LlmTool[];
  /** Present only with `tools`. */
  toolChoice?: LlmToolChoice;
  /** Absent for plain text. */
  responseFormat?: Exclude<LlmResponseFormat, { type: 'text' }>;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
}
