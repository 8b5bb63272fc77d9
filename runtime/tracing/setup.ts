/**
 * The process's OpenTelemetry SDK (docs/tracing.md): a tracer provider exporting over OTLP/HTTP, a meter provider
 * exporting the GenAI client metrics, the W3C trace-context propagator and the AsyncLocalStorage context manager,
 * registered as the process's globals. Off (nothing registered, nothing exported) unless the standard `OTEL_*`
 * settings name a collector. One provider per process: standalone's gateway and orchestrator share it, and a
 * second start (tests that run several components in one process) joins the first. NB: the SDK and its exporters
 * (sdk.ts) are loaded only when something is exported.
 */
import { context, metrics, propagation, trace, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Logger } from '../../platform/log.js';
import type { Exporting } from './sdk.js';
import { tracingState } from './state.js';

/** The standard samplers (`OTEL_TRACES_SAMPLER`). */
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** What the `OTEL_*` settings say (cmd/config/settings.ts). */
export interface TracingSettings {
  /** OTLP/HTTP URL spans are POSTed to; absent: no traces. */
  tracesUrl?: string;
  /** OTLP/HTTP URL metrics are POSTed to; absent: no OpenTelemetry metrics (Prometheus is unaffected). */
  metricsUrl?: string;
  /** `OTEL_SERVICE_NAME`; absent: the process's own (`steward-gateway`, `steward`…). */
  serviceName?: string;
  sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the ratio samplers. */
  samplerRatio: number;
  /** Spans wait at most this long before they are sent (`OTEL_BSP_SCHEDULE_DELAY`). */
  batchDelayMs: number;
  /** Metrics are sent this often (`OTEL_METRIC_EXPORT_INTERVAL`). */
  metricIntervalMs: number;
  /** Record prompts and answers, as redacted as they were stored (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureContent: boolean;
}

export const TRACING_OFF: TracingSettings = Object.freeze({
  sampler: 'parentbased_always_on',
  samplerRatio: 1,
  batchDelayMs: 5000,
  metricIntervalMs: 60_000,
  captureContent: false,
});

/** A started SDK; `close()` flushes what is pending and, when the last user closes, unregisters it. */
export interface Tracing {
  readonly traces: boolean;
  readonly metrics: boolean;
  /** Sends what is pending now (tests, benchmarks). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface Installed extends Exporting {
  users: number;
}

let installed: Installed | undefined;
/** Registered once per process whatever the settings: incoming `traceparent` headers are passed on even when off. */
let propagator: TextMapPropagator | undefined;

/**
 * Starts the SDK for one component of this process. `process` names the service when `OTEL_SERVICE_NAME` does not.
 * With neither URL set, only the context manager and the propagator are registered: a caller's trace context still
 * reaches the providers, agents and connectors, and audit rows still carry its trace id.
 */
export async function startTracing(settings: TracingSettings, processName: string, log: Logger): Promise<Tracing> {
  registerPropagation();
  if (!settings.tracesUrl && !settings.metricsUrl) return NOT_EXPORTING;
  // NB: loaded before `installed` is read: a component that started while it loaded is joined, not duplicated.
  const sdk = await import('./sdk.js');
  if (installed) {
    installed.users++;
    return handle(installed);
  }
  const exporting = sdk.exporting(settings, processName);
  const next: Installed = { ...exporting, users: 1 };
  if (next.tracer) trace.setGlobalTracerProvider(next.tracer);
  if (next.meter) metrics.setGlobalMeterProvider(next.meter);
  installed = next;
  tracingState.enable(settings.captureContent, Boolean(next.tracer), Boolean(next.meter));
  log.info(
    {
      traces: settings.tracesUrl ?? null,
      metrics: settings.metricsUrl ?? null,
      sampler: settings.sampler,
      captureContent: settings.captureContent,
    },
    'OpenTelemetry export on',
  );
  return handle(next);
}

const NOT_EXPORTING: Tracing = Object.freeze({
  traces: false,
  metrics: false,
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
});

function handle(i: Installed): Tracing {
  let closed = false;
  return {
    traces: Boolean(i.tracer),
    metrics: Boolean(i.meter),
    flush: async () => {
      await Promise.all([i.tracer?.forceFlush(), i.meter?.forceFlush()]);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (--i.users > 0) return;
      installed = undefined;
      tracingState.disable();
      // NB: shutdown exports what is pending first.
      await Promise.allSettled([i.tracer?.shutdown(), i.meter?.shutdown()]);
      trace.disable();
      metrics.disable();
    },
  };
}

function registerPropagation(): void {
  if (propagator) return;
  propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/**
 * The OTLP/HTTP URL of one signal from the standard settings: the signal's own endpoint as it is, else the base
 * endpoint plus `v1/traces` (`v1/metrics`), else, when the signal's exporter is set to `otlp` explicitly, the
 * collector's default `http://localhost:4318`. Absent when the signal is off.
 */
export function otlpUrl(
  signal: 'traces' | 'metrics',
  o: { disabled: boolean; exporter?: 'otlp' | 'none'; endpoint?: string; signalEndpoint?: string },
): string | undefined {
  if (o.disabled || o.exporter === 'none') return undefined;
  if (o.signalEndpoint) return o.signalEndpoint;
  const base = o.endpoint ?? (o.exporter === 'otlp' ? 'http://localhost:4318' : undefined);
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/${signal}`;
}
