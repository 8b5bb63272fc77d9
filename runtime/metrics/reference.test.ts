import { describe, expect, it } from 'vitest';
import { agentMetricsBody, orchestratorRequestMetrics } from './reference.js';
import { RequestMetrics } from './request-metrics.js';

describe('reference metrics objects', () => {
  const setUp = () => {
    let now = 1_700_000_000_000;
    const m = new RequestMetrics({ windowSec: 60, now: () => now });
    m.record(10, 'success');
    m.record(20, 'success');
    m.record(30, 'failed');
    m.record(1, 'blocked');
    now += 90_500;
    m.record(12, 'success');
    return m;
  };

  it('renders the Agent agent_metrics fields with the success rate in percent', () => {
    const body = agentMetricsBody(setUp().snapshot());
    expect(Object.keys(body).sort()).toEqual(
      [
        'avg_latency_ms',
        'blocked_requests',
        'failed_requests',
        'p50_ms',
        'p95_ms',
        'p99_ms',
        'rps',
        'success_rate',
        'success_requests',
        'total_requests',
        'uptime_seconds',
      ].sort(),
    );
    expect(body).toMatchObject({
      total_requests: 1,
      success_requests: 1,
      failed_requests: 0,
      success_rate: 100,
      uptime_seconds: 90,
    });
  });

  it('renders the Orchestrator requests and latency objects with the success rate as a fraction', () => {
    let now = 1_700_000_000_000;
    const m = new RequestMetrics({ windowSec: 300, now: () => now });
    m.record(10, 'success');
    m.record(30, 'failed');
    m.record(20, 'success');
    m.record(25, 'success');
    now += 1000;
    const out = orchestratorRequestMetrics(m.snapshot());
    expect(out.requests).toEqual({ total: 4, successful: 3, failed: 1, success_rate: 0.75 });
    expect(out.latency.max_ms).toBe(30);
    expect(out.period_seconds).toBe(300);
  });
});
