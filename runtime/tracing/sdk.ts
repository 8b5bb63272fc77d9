/**
 * The OpenTelemetry SDK's providers and OTLP/HTTP exporters for the settings (setup.ts loads this module only when a
 * signal is exported, so that a process without a collector does not carry the SDK).
 */
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetector, detectResources, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { VERSION } from '../../platform/version.js';
import type { TracingSettings } from './setup.js';

/** The providers of the exported signals (not yet registered as the globals). */
export interface Exporting {
  tracer?: TracerProvider;
  meter?: MeterProvider;
}

export function exporting(settings: TracingSettings, processName: string): Exporting {
  const resource = resourceFromAttributes({
    'service.name': settings.serviceName ?? processName,
    'service.version': VERSION,
  }).merge(detectResources({ detectors: [envDetector] }));
  const out: Exporting = {};
  if (settings.tracesUrl) {
    out.tracer = new TracerProvider({
      resource,
      sampler: samplerOf(settings),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: settings.tracesUrl }),
          scheduledDelayMillis: settings.batchDelayMs,
        }),
      ],
    });
  }
  if (settings.metricsUrl) {
    out.meter = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: settings.metricsUrl }),
          exportIntervalMillis: settings.metricIntervalMs,
          exportTimeoutMillis: Math.min(30_000, settings.metricIntervalMs),
        }),
      ],
    });
  }
  return out;
}

function samplerOf(s: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(s.samplerRatio);
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
