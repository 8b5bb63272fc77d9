import { describe, expect, it } from 'vitest';
import { MetricsInputError, RequestMetrics, successRateFraction, successRatePercent } from './request-metrics.js';

const T0 = 1_700_000_000_000;

function setUp(windowSec = 60) {
  const clock = { ms: T0 };
  const m = new RequestMetrics({ windowSec, now: () => clock.ms });
  return { m, advanceSec: (s: number) => void (clock.ms += s * 1000) };
}

describe('RequestMetrics', () => {
  it('reports an empty window as zeros with a success rate of 1', () => {
    const { m, advanceSec } = setUp();
    advanceSec(5);
    expect(m.snapshot()).toMatchObject({
      total: 0,
      avgLatencyMs: 0,
      p50Ms: 0,
      p99Ms: 0,
      maxMs: 0,
      rps: 0,
      successRate: 1,
      uptimeSeconds: 5,
    });
  });

  it('counts outcomes and computes average, maximum and percentiles', () => {
    const { m } = setUp();
    for (let ms = 1; ms <= 100; ms++) m.record(ms, ms % 10 === 0 ? 'failed' : ms % 10 === 1 ? 'blocked' : 'success');
    const s = m.snapshot();
    expect(s).toMatchObject({ total: 100, success: 80, failed: 10, blocked: 10, maxMs: 100 });
    expect(s.avgLatencyMs).toBeCloseTo(50.5, 10);
    // Bins are at most 3.1% wide: the reported value is within half of that.
    expect(s.p50Ms).toBeGreaterThan(50 * 0.984);
    expect(s.p50Ms).toBeLessThan(50 * 1.016);
    expect(s.p95Ms).toBeGreaterThan(95 * 0.984);
    expect(s.p95Ms).toBeLessThan(95 * 1.016);
    expect(s.p99Ms).toBeGreaterThan(99 * 0.984);
    expect(s.p99Ms).toBeLessThanOrEqual(100);
    expect(s.successRate).toBeCloseTo(80 / 90, 12);
  });

  it('never reports a percentile above the maximum seen', () => {
    const { m } = setUp();
    m.record(1000.4, 'success');
    const s = m.snapshot();
    expect(s.p99Ms).toBeLessThanOrEqual(1000.4);
    expect(s.p50Ms).toBe(s.p99Ms);
  });

  it('forgets requests older than the window but keeps them in the lifetime counts', () => {
    const { m, advanceSec } = setUp(10);
    m.record(500, 'failed');
    advanceSec(9);
    m.record(5, 'success');
    expect(m.snapshot()).toMatchObject({ total: 2, maxMs: 500 });
    advanceSec(1);
    const s = m.snapshot();
    expect(s).toMatchObject({ total: 1, success: 1, failed: 0, maxMs: 5 });
    expect(s.lifetime).toEqual({ total: 2, success: 1, failed: 1, blocked: 0 });
  });

  it('clears a reused slot when the ring wraps', () => {
    const { m, advanceSec } = setUp(10);
    for (let i = 0; i < 5; i++) m.record(900, 'failed');
    advanceSec(10); // same slot, next lap
    m.record(10, 'success');
    const s = m.snapshot();
    expect(s).toMatchObject({ total: 1, failed: 0, maxMs: 10 });
    expect(s.p99Ms).toBeLessThanOrEqual(10);
  });

  it('measures rps over the uptime until the window is full, then over the window', () => {
    const { m, advanceSec } = setUp(60);
    advanceSec(10);
    for (let i = 0; i < 50; i++) m.record(1, 'success');
    expect(m.snapshot().rps).toBeCloseTo(5, 10);
    advanceSec(50);
    for (let i = 0; i < 70; i++) m.record(1, 'success');
    expect(m.snapshot().rps).toBeCloseTo(120 / 60, 10);
  });

  it('counts into the newer second when the clock steps back instead of wiping it', () => {
    const { m, advanceSec } = setUp(10);
    advanceSec(10);
    m.record(3, 'success');
    advanceSec(-10);
    m.record(4, 'success');
    advanceSec(10);
    expect(m.snapshot().total).toBe(1);
    expect(m.snapshot().lifetime.total).toBe(2);
  });

  it.each([
    { name: 'a negative latency', latency: -1, outcome: 'success', field: 'latencyMs' },
    { name: 'a NaN latency', latency: Number.NaN, outcome: 'success', field: 'latencyMs' },
    { name: 'an infinite latency', latency: Infinity, outcome: 'success', field: 'latencyMs' },
    { name: 'an unknown outcome', latency: 1, outcome: 'timeout', field: 'outcome' },
    { name: 'an inherited property as outcome', latency: 1, outcome: 'toString', field: 'outcome' },
  ])('rejects $name', ({ latency, outcome, field }) => {
    const { m } = setUp();
    expect(() => m.record(latency, outcome as 'success')).toThrow(
      expect.objectContaining({ name: 'MetricsInputError', field }),
    );
    expect(m.snapshot().lifetime.total).toBe(0);
  });

  it('rejects a window outside 1 to 900 seconds', () => {
    expect(() => new RequestMetrics({ windowSec: 0 })).toThrow(MetricsInputError);
    expect(() => new RequestMetrics({ windowSec: 901 })).toThrow(MetricsInputError);
  });

  it('renders the success rate as percent and fraction', () => {
    expect(successRatePercent({ successRate: 0.98765 })).toBe(98.77);
    expect(successRateFraction({ successRate: 0.98765 })).toBe(0.9877);
  });
});
