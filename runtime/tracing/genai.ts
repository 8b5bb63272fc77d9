/**
 * The GenAI spans and metrics of the calls Steward makes (docs/tracing.md): `chat {model}` for a call to a
 * provider, `invoke_agent {agent}` for a pool agent's work (plan steps, parallel queries), `execute_tool {tool}`
 * for a connector call; `gen_ai.client.operation.duration` and `gen_ai.client.token.usage` with the conventions'
 * bucket boundaries. Content (prompt and answer) only under `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`,
 * and masked even then.
 */
import { metrics, type Attributes, type Histogram, type Span } from '@opentelemetry/api';
import { VERSION } from '../../platform/version.js';
import { contextOf, endSpan, safeText, SpanKind, startSpan, type Context } from './spans.js';
import { tracingState } from './state.js';

/** The conventions' boundaries for `gen_ai.client.token.usage`. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** The conventions' boundaries for `gen_ai.client.operation.duration`, in seconds. */
export const DURATION_BUCKETS_S = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** Steward's provider names in the conventions' words (`gen_ai.provider.name`). */
export function providerName(provider: string): string {
  if (provider === 'bedrock') return 'aws.bedrock';
  return provider;
}

let instruments: { duration: Histogram; tokens: Histogram } | undefined;
let instrumentsOf: unknown;

/** The two histograms of the process's meter provider (made again when the provider changed: tests). */
function histograms(): { duration: Histogram; tokens: Histogram } {
  const provider = metrics.getMeterProvider();
  if (!instruments || instrumentsOf !== provider) {
    const meter = metrics.getMeter('steward', VERSION);
    instrumentsOf = provider;
    instruments = {
      duration: meter.createHistogram('gen_ai.client.operation.duration', {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
      }),
      tokens: meter.createHistogram('gen_ai.client.token.usage', {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
    };
  }
  return instruments;
}

export type GenAiOperation = 'chat' | 'invoke_agent';

/** How a GenAI call ended, as its span and metrics record it. */
export interface GenAiOutcome {
  provider?: string;
  responseModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  finishReason?: string | null;
  /** `error.type`: the error's code; absent for a call that answered (blocked or not). */
  errorType?: string;
  errorMessage?: string;
  /** Steward's facts: the row's decision and id. */
  attributes?: Attributes;
  /** The prompt and the answer as they were stored (masked again before they go in). */
  content?: { prompt: string; response?: string };
}

/**
 * One model call or agent invocation. The span starts before the input policies (their `apply_guardrail` spans are
 * its children) and ends with the call's audit row; the metrics are recorded then.
 */
export class GenAiCall {
  private readonly started = performance.now();
  private model: string | undefined;
  private provider: string | undefined;
  private readonly agent: string | undefined;
  readonly span: Span | undefined;
  /** The context the call's stages run in: the span active. */
  readonly context: Context;

  constructor(
    private readonly operation: GenAiOperation,
    o: { model?: string; provider?: string; agent?: string; maxTokens?: number; attributes?: Attributes },
  ) {
    this.model = o.model;
    this.provider = o.provider;
    this.agent = o.agent;
    this.span = startSpan(this.name(), SpanKind.CLIENT, {
      'gen_ai.operation.name': operation,
      ...(o.provider ? { 'gen_ai.provider.name': providerName(o.provider) } : {}),
      ...(o.model ? { 'gen_ai.request.model': o.model } : {}),
      ...(o.agent ? { 'gen_ai.agent.name': o.agent } : {}),
      ...(o.maxTokens !== undefined ? { 'gen_ai.request.max_tokens': o.maxTokens } : {}),
      ...o.attributes,
    });
    this.context = contextOf(this.span);
  }

  /** The upstream is known: the provider and model asked of it (a chat span is named after its model). */
  upstream(provider: string, model: string): void {
    this.provider = provider;
    this.model = model;
    if (!this.span) return;
    this.span.setAttribute('gen_ai.provider.name', providerName(provider));
    this.span.setAttribute('gen_ai.request.model', model);
    if (this.operation === 'chat') this.span.updateName(this.name());
  }

  set(key: string, value: string | number | boolean): void {
    this.span?.setAttribute(key, value);
  }

  end(o: GenAiOutcome): void {
    const provider = o.provider ?? this.provider;
    const span = this.span;
    if (span) {
      if (provider) span.setAttribute('gen_ai.provider.name', providerName(provider));
      if (o.responseModel) span.setAttribute('gen_ai.response.model', o.responseModel);
      if (o.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', o.inputTokens);
      if (o.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', o.outputTokens);
      if (o.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [o.finishReason]);
      if (o.attributes) span.setAttributes(o.attributes);
      if (o.content && tracingState.captureContent) {
        span.setAttribute('gen_ai.input.messages', messages('user', o.content.prompt));
        if (o.content.response !== undefined)
          span.setAttribute('gen_ai.output.messages', messages('assistant', o.content.response, o.finishReason));
      }
      endSpan(span, o.errorType, o.errorMessage);
    }
    if (!tracingState.metrics) return;
    const attributes: Attributes = {
      'gen_ai.operation.name': this.operation,
      'gen_ai.provider.name': provider ? providerName(provider) : '_OTHER',
      ...(this.model ? { 'gen_ai.request.model': this.model } : {}),
      ...(o.responseModel ? { 'gen_ai.response.model': o.responseModel } : {}),
    };
    const h = histograms();
    h.duration.record(
      (performance.now() - this.started) / 1000,
      o.errorType ? { ...attributes, 'error.type': o.errorType } : attributes,
    );
    if (o.inputTokens) h.tokens.record(o.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
    if (o.outputTokens) h.tokens.record(o.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
  }

  private name(): string {
    if (this.operation === 'invoke_agent') return this.agent ? `invoke_agent ${this.agent}` : 'invoke_agent';
    return this.model ? `chat ${this.model}` : 'chat';
  }
}

/** A message list of one message in the conventions' JSON shape, its text masked. */
function messages(role: 'user' | 'assistant', text: string, finishReason?: string | null): string {
  return JSON.stringify([
    {
      role,
      parts: [{ type: 'text', content: safeText(text) }],
      ...(role === 'assistant' && finishReason ? { finish_reason: finishReason } : {}),
    },
  ]);
}

/** A connector call: `execute_tool {tool}` (the statement's operation for a SQL connector), ended by its audit. */
export function startToolSpan(o: {
  connector: string;
  tool: string;
  toolType: 'extension' | 'datastore';
}): Span | undefined {
  return startSpan(`execute_tool ${o.tool}`, SpanKind.INTERNAL, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': o.tool,
    'gen_ai.tool.type': o.toolType,
    'steward.connector': o.connector,
  });
}

/**
 * A message to a remote A2A agent (an `a2a` connector's call): `invoke_agent {agent}`, the client side of the hop.
 * Its context goes out as `traceparent`, so that an agent that traces (Steward's own A2A server does) continues it.
 */
export function startRemoteAgentSpan(o: { agent: string; connector: string; url: URL }): Span | undefined {
  const port = Number(o.url.port || (o.url.protocol === 'https:' ? 443 : 80));
  return startSpan(`invoke_agent ${o.agent}`, SpanKind.CLIENT, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': o.agent,
    'server.address': o.url.hostname,
    'server.port': port,
    'steward.connector': o.connector,
  });
}
