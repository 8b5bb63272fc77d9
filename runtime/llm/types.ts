/** The provider kinds Steward talks to. `echo` is a development stand-in, never a model. */
export type LlmProviderType = 'openai' | 'anthropic' | 'aws-bedrock' | 'ollama' | 'echo';

export type LlmRole = 'system' | 'user' | 'assistant';

export interface LlmMessage {
  role: LlmRole;
  content: string;
}

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
  /** Deadline for the whole call, retries included; overrides the provider's `timeoutMs`. */
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

export interface LlmProvider {
  /** The configured name; the router picks providers by it. */
  readonly name: string;
  readonly type: LlmProviderType;
  /** The model used when a request names none. */
  readonly defaultModel: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
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
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
}
