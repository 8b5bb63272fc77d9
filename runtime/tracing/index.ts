/** OpenTelemetry traces and GenAI metrics (docs/tracing.md). */
export {
  GenAiCall,
  providerName,
  startRemoteAgentSpan,
  startToolSpan,
  DURATION_BUCKETS_S,
  TOKEN_BUCKETS,
  type GenAiOutcome,
} from './genai.js';
export { guardrailSpans, redactionSpan, kindOf, MAX_FINDINGS } from './guardrails.js';
export { installTracing } from './http.js';
export { startTracing, otlpUrl, TRACING_OFF, type SamplerName, type Tracing, type TracingSettings } from './setup.js';
export {
  activeTraceId,
  endSpan,
  inContext,
  safeText,
  startSpan,
  traceHeaders,
  withSpan,
  SpanKind,
  type Context,
  type Span,
} from './spans.js';
export { tracingState } from './state.js';
