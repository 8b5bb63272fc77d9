import { describe, expect, it } from 'vitest';
import { gatewaySettings } from '../../cmd/config/settings.js';
import { ConfigError } from '../../platform/config.js';
import { decisionOf, kindOf, targetOf } from './guardrails.js';
import { otlpUrl } from './setup.js';
import { safeText } from './spans.js';

describe('the OTLP URLs from the standard settings', () => {
  it('adds the signal path to the base endpoint, takes a signal endpoint as it is, and defaults only on otlp', () => {
    expect(otlpUrl('traces', { disabled: false, endpoint: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(otlpUrl('metrics', { disabled: false, endpoint: 'http://c:4318/otlp' })).toBe(
      'http://c:4318/otlp/v1/metrics',
    );
    expect(otlpUrl('traces', { disabled: false, endpoint: 'http://c:4318', signalEndpoint: 'http://t:9999/x' })).toBe(
      'http://t:9999/x',
    );
    expect(otlpUrl('traces', { disabled: false })).toBeUndefined();
    expect(otlpUrl('traces', { disabled: false, exporter: 'otlp' })).toBe('http://localhost:4318/v1/traces');
    expect(otlpUrl('traces', { disabled: false, exporter: 'none', endpoint: 'http://c:4318' })).toBeUndefined();
    expect(otlpUrl('traces', { disabled: true, endpoint: 'http://c:4318' })).toBeUndefined();
  });

  it('reads the process settings: off by default, on with an endpoint, bad values refused by name', () => {
    expect(gatewaySettings({}).tracing).toMatchObject({ sampler: 'parentbased_always_on', captureContent: false });
    expect(gatewaySettings({}).tracing?.tracesUrl).toBeUndefined();
    const on = gatewaySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'edge-gateway',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    }).tracing;
    expect(on).toMatchObject({
      tracesUrl: 'http://collector:4318/v1/traces',
      sampler: 'traceidratio',
      samplerRatio: 0.25,
      serviceName: 'edge-gateway',
      captureContent: true,
    });
    expect(on?.metricsUrl).toBeUndefined();
    expect(() => gatewaySettings({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(ConfigError);
    expect(() => gatewaySettings({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => gatewaySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => gatewaySettings({ OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});

describe('the security conventions', () => {
  it('maps each policy result to a decision type', () => {
    const r = (decision: 'block' | 'warn' | 'log' | 'audit' | 'exempted' | 'redact') => ({
      policy: 'p',
      mode: 'enforce' as const,
      would: 'block' as const,
      decision,
    });
    expect(decisionOf(r('block'), false, false)).toBe('deny');
    expect(decisionOf(r('warn'), false, false)).toBe('warn');
    expect(decisionOf(r('log'), false, false)).toBe('audit');
    expect(decisionOf(r('audit'), false, false)).toBe('audit');
    expect(decisionOf(r('exempted'), false, false)).toBe('allow');
    expect(decisionOf(r('redact'), false, false)).toBe('modify');
    expect(decisionOf(undefined, true, false)).toBe('deny');
    expect(decisionOf(undefined, false, true)).toBe('warn');
    expect(decisionOf(undefined, false, false)).toBe('allow');
    expect([targetOf('llm'), targetOf('pre-check'), targetOf('llm_output'), targetOf('mcp')]).toEqual([
      'llm_input',
      'llm_input',
      'llm_output',
      'tool_call',
    ]);
  });

  it('takes a finding kind from the pack message form only, never text that could be the caller’s', () => {
    expect(kindOf('PII detected: US SSN')).toBe('us_ssn');
    expect(kindOf('Secret detected: AWS access key')).toBe('aws_access_key');
    expect(kindOf('blocked: 123-45-6789')).toBeUndefined();
    expect(kindOf('blocked: call 555 0199')).toBeUndefined();
    expect(kindOf('no colon here')).toBeUndefined();
    expect(kindOf(`label: ${'a'.repeat(65)}`)).toBeUndefined();
  });

  it('masks every detector kind in text that becomes an attribute, and bounds it', () => {
    const t = safeText('customer 123-45-6789 paid with 4111 1111 1111 1111');
    expect(t).not.toContain('123-45-6789');
    expect(t).not.toContain('4111 1111 1111 1111');
    expect(safeText('x'.repeat(10_000), 100)).toHaveLength(100);
  });
});
