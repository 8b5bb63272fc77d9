import { describe, expect, it } from 'vitest';
import { requestMetricFamilies } from './families.js';
import { PrometheusFormatError, renderPrometheus, type MetricFamily } from './prometheus.js';
import { RequestMetrics } from './request-metrics.js';

describe('renderPrometheus', () => {
  it('renders HELP and TYPE once per family, then the samples', () => {
    const text = renderPrometheus([
      { type: 'counter', name: 'x_requests_total', help: 'Requests.', samples: [{ labels: { outcome: 'success' }, value: 3 }, { labels: { outcome: 'failed' }, value: 0 }] },
      { type: 'gauge', name: 'x_up', help: 'Up.', samples: [{ value: 1 }] },
      {
        type: 'histogram',
        name: 'x_seconds',
        help: 'Latency.',
        series: [{ labels: { route: '/a' }, buckets: [{ le: 0.1, count: 1 }, { le: 1, count: 2 }], sum: 1.25, count: 3 }],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP x_requests_total Requests.',
        '# TYPE x_requests_total counter',
        'x_requests_total{outcome="success"} 3',
        'x_requests_total{outcome="failed"} 0',
        '# HELP x_up Up.',
        '# TYPE x_up gauge',
        'x_up 1',
        '# HELP x_seconds Latency.',
        '# TYPE x_seconds histogram',
        'x_seconds_bucket{route="/a",le="0.1"} 1',
        'x_seconds_bucket{route="/a",le="1"} 2',
        'x_seconds_bucket{route="/a",le="+Inf"} 3',
        'x_seconds_sum{route="/a"} 1.25',
        'x_seconds_count{route="/a"} 3',
        '',
      ].join('\n'),
    );
  });

  it('escapes backslash, double quote and newline in label values, and backslash and newline in help', () => {
    const text = renderPrometheus([{ type: 'gauge', name: 'g', help: 'a\\b\nc "quoted"', samples: [{ labels: { path: 'C:\\x "y"\nz' }, value: 1 }] }]);
    expect(text).toContain('# HELP g a\\\\b\\nc "quoted"\n');
    expect(text).toContain('g{path="C:\\\\x \\"y\\"\\nz"} 1\n');
  });

  it('writes NaN and infinities the way Prometheus parses them', () => {
    const text = renderPrometheus([{ type: 'gauge', name: 'g', help: 'h', samples: [{ value: Number.NaN }, { value: Infinity }, { value: -Infinity }] }]);
    expect(text.split('\n').slice(2, 5)).toEqual(['g NaN', 'g +Inf', 'g -Inf']);
  });

  it.each<{ name: string; families: MetricFamily[] }>([
    { name: 'an invalid metric name', families: [{ type: 'gauge', name: '1bad', help: 'h', samples: [] }] },
    { name: 'an invalid label name', families: [{ type: 'gauge', name: 'g', help: 'h', samples: [{ labels: { 'a-b': 'x' }, value: 1 }] }] },
    { name: 'a reserved label name', families: [{ type: 'gauge', name: 'g', help: 'h', samples: [{ labels: { __name__: 'x' }, value: 1 }] }] },
    { name: 'a family twice', families: [{ type: 'gauge', name: 'g', help: 'h', samples: [] }, { type: 'gauge', name: 'g', help: 'h', samples: [] }] },
    { name: 'a negative counter', families: [{ type: 'counter', name: 'c_total', help: 'h', samples: [{ value: -1 }] }] },
    { name: 'an le label on a histogram', families: [{ type: 'histogram', name: 'h', help: 'h', series: [{ labels: { le: '1' }, buckets: [], sum: 0, count: 0 }] }] },
    { name: 'non-cumulative buckets', families: [{ type: 'histogram', name: 'h', help: 'h', series: [{ buckets: [{ le: 1, count: 2 }, { le: 2, count: 1 }], sum: 0, count: 2 }] }] },
    { name: 'descending bounds', families: [{ type: 'histogram', name: 'h', help: 'h', series: [{ buckets: [{ le: 2, count: 0 }, { le: 1, count: 0 }], sum: 0, count: 0 }] }] },
    { name: 'a bucket above the count', families: [{ type: 'histogram', name: 'h', help: 'h', series: [{ buckets: [{ le: 1, count: 5 }], sum: 0, count: 2 }] }] },
  ])('refuses $name', ({ families }) => {
    expect(() => renderPrometheus(families)).toThrow(PrometheusFormatError);
  });
});

describe('requestMetricFamilies', () => {
  it('exposes lifetime counters, a histogram in seconds and window gauges', () => {
    let now = 1_700_000_000_000;
    const m = new RequestMetrics({ now: () => now });
    m.record(3, 'success');
    m.record(40, 'success');
    m.record(700, 'failed');
    m.record(2, 'blocked');
    now += 2000;
    const text = renderPrometheus(requestMetricFamilies(m, { prefix: 'steward_gateway', labels: { surface: 'agent' } }));
    expect(text).toContain('steward_gateway_requests_total{surface="agent",outcome="success"} 2\n');
    expect(text).toContain('steward_gateway_requests_total{surface="agent",outcome="blocked"} 1\n');
    expect(text).toContain('steward_gateway_request_duration_seconds_bucket{surface="agent",le="0.005"} 2\n');
    expect(text).toContain('steward_gateway_request_duration_seconds_bucket{surface="agent",le="0.05"} 3\n');
    expect(text).toContain('steward_gateway_request_duration_seconds_bucket{surface="agent",le="+Inf"} 4\n');
    expect(text).toContain('steward_gateway_request_duration_seconds_sum{surface="agent"} 0.745\n');
    expect(text).toContain('steward_gateway_uptime_seconds{surface="agent"} 2\n');
    // Every line is a comment or a well-formed sample.
    for (const line of text.trimEnd().split('\n')) {
      expect(line).toMatch(/^(# (HELP|TYPE) [a-z_:]+ .+|[a-z_:]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? \S+)$/);
    }
  });
});
