import { BIN_COUNT, binOf, percentilesUs } from './bins.js';
import { LatencyHistogram, DEFAULT_LATENCY_BOUNDS_MS } from './histogram.js';

export type Outcome = 'success' | 'failed' | 'blocked';
const OUTCOME_SLOT: Readonly<Record<Outcome, number>> = { success: 0, failed: 1, blocked: 2 };

/** Milliseconds since the Unix epoch; injected so tests control time. */
export type Clock = () => number;

export class MetricsInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'MetricsInputError';
  }
}

export interface RequestMetricsOptions {
  /** Length of the sliding window the snapshot covers, whole seconds (1 to 900). @default 60 */
  windowSec?: number;
  /** @default Date.now */
  now?: Clock;
  /** Process start for uptime. @default the clock at construction */
  startedAtMs?: number;
  /** Upper bounds of the lifetime Prometheus histogram's buckets, in milliseconds. */
  histogramBoundsMs?: readonly number[];
}

export interface OutcomeCounts {
  total: number;
  success: number;
  failed: number;
  blocked: number;
}

export interface MetricsSnapshot extends OutcomeCounts {
  /** The window these figures cover (the reference's `period_seconds`). */
  windowSec: number;
  /** Latency figures over the window; 0 when it holds no request. Percentiles are within 3.1% (bin width). */
  avgLatencyMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests per second over the window (or over the uptime, while shorter). */
  rps: number;
  /**
   * success / (success + failed) as a fraction; 1 when neither happened. Blocked requests are governance
   * decisions carried out correctly, not failures, so they are in neither term.
   */
  successRate: number;
  uptimeSeconds: number;
  /** Counts since start (what Prometheus counters expose). */
  lifetime: OutcomeCounts;
  /** When the snapshot was taken, ms since the epoch. */
  atMs: number;
}

const QUANTILES = [0.5, 0.95, 0.99] as const;
const MAX_WINDOW_SEC = 900;

/**
 * Request counts and latencies over a sliding window: a ring of per-second buckets, each with outcome
 * counts, latency sum and max, and a log-linear latency histogram. Recording touches one bucket (clearing it
 * first when it holds an older second) and allocates nothing; a snapshot merges the live buckets.
 * Memory: about 3.5 KiB per second of window.
 */
export class RequestMetrics {
  readonly windowSec: number;
  readonly startedAtMs: number;
  /** Lifetime latency histogram with fixed bounds, for Prometheus. */
  readonly histogram: LatencyHistogram;
  private readonly now: Clock;
  private readonly second: Float64Array; // which epoch second each slot holds; -1 when empty
  private readonly counts: Uint32Array; // 3 per slot: success, failed, blocked
  private readonly sumMs: Float64Array;
  private readonly maxMs: Float64Array;
  private readonly bins: Uint32Array; // BIN_COUNT per slot
  private readonly merged = new Uint32Array(BIN_COUNT);
  private readonly lifetimeCounts = [0, 0, 0];
  private readonly pct: number[] = [];

  constructor(options: RequestMetricsOptions = {}) {
    const windowSec = options.windowSec ?? 60;
    if (!Number.isInteger(windowSec) || windowSec < 1 || windowSec > MAX_WINDOW_SEC) {
      throw new MetricsInputError('windowSec', `must be an integer from 1 to ${MAX_WINDOW_SEC}`);
    }
    this.windowSec = windowSec;
    this.now = options.now ?? Date.now;
    this.startedAtMs = options.startedAtMs ?? this.now();
    this.histogram = new LatencyHistogram(options.histogramBoundsMs ?? DEFAULT_LATENCY_BOUNDS_MS);
    this.second = new Float64Array(windowSec).fill(-1);
    this.counts = new Uint32Array(windowSec * 3);
    this.sumMs = new Float64Array(windowSec);
    this.maxMs = new Float64Array(windowSec);
    this.bins = new Uint32Array(windowSec * BIN_COUNT);
  }

  record(latencyMs: number, outcome: Outcome): void {
    if (typeof latencyMs !== 'number' || !(latencyMs >= 0) || latencyMs === Infinity) {
      throw new MetricsInputError('latencyMs', 'must be a finite number ≥ 0');
    }
    if (!Object.hasOwn(OUTCOME_SLOT, outcome))
      throw new MetricsInputError('outcome', 'must be success, failed or blocked');
    const o = OUTCOME_SLOT[outcome];
    const sec = Math.floor(this.now() / 1000);
    const slot = sec % this.windowSec;
    if (this.second[slot] !== sec) {
      // NB: a clock that stepped back would find a newer second here; counting into it beats wiping it.
      if (this.second[slot]! > sec) return this.recordLifetime(latencyMs, o);
      this.clearSlot(slot, sec);
    }
    this.counts[slot * 3 + o]!++;
    this.sumMs[slot]! += latencyMs;
    if (latencyMs > this.maxMs[slot]!) this.maxMs[slot] = latencyMs;
    this.bins[slot * BIN_COUNT + binOf(Math.round(latencyMs * 1000))]!++;
    this.recordLifetime(latencyMs, o);
  }

  snapshot(): MetricsSnapshot {
    const atMs = this.now();
    const nowSec = Math.floor(atMs / 1000);
    const merged = this.merged.fill(0);
    let success = 0;
    let failed = 0;
    let blocked = 0;
    let sum = 0;
    let max = 0;
    for (let slot = 0; slot < this.windowSec; slot++) {
      const sec = this.second[slot]!;
      if (sec < 0 || sec <= nowSec - this.windowSec || sec > nowSec) continue;
      success += this.counts[slot * 3]!;
      failed += this.counts[slot * 3 + 1]!;
      blocked += this.counts[slot * 3 + 2]!;
      sum += this.sumMs[slot]!;
      if (this.maxMs[slot]! > max) max = this.maxMs[slot]!;
      const base = slot * BIN_COUNT;
      for (let b = 0; b < BIN_COUNT; b++) merged[b]! += this.bins[base + b]!;
    }
    const total = success + failed + blocked;
    const [p50, p95, p99] = percentilesUs(merged, total, QUANTILES, this.pct).map((us) => Math.min(us / 1000, max));
    const uptimeSeconds = Math.max(0, (atMs - this.startedAtMs) / 1000);
    const spanSec = Math.max(1, Math.min(this.windowSec, uptimeSeconds));
    const [ls, lf, lb] = this.lifetimeCounts as [number, number, number];
    return {
      windowSec: this.windowSec,
      total,
      success,
      failed,
      blocked,
      avgLatencyMs: total ? sum / total : 0,
      p50Ms: p50!,
      p95Ms: p95!,
      p99Ms: p99!,
      maxMs: max,
      rps: total / spanSec,
      successRate: success + failed === 0 ? 1 : success / (success + failed),
      uptimeSeconds,
      lifetime: { total: ls + lf + lb, success: ls, failed: lf, blocked: lb },
      atMs,
    };
  }

  private recordLifetime(latencyMs: number, outcome: number): void {
    this.lifetimeCounts[outcome]!++;
    this.histogram.observe(latencyMs);
  }

  private clearSlot(slot: number, sec: number): void {
    this.second[slot] = sec;
    this.counts.fill(0, slot * 3, slot * 3 + 3);
    this.sumMs[slot] = 0;
    this.maxMs[slot] = 0;
    this.bins.fill(0, slot * BIN_COUNT, (slot + 1) * BIN_COUNT);
  }
}

/** success_rate as the Agent metrics report it: a percentage, two decimals. */
export function successRatePercent(s: Pick<MetricsSnapshot, 'successRate'>): number {
  return Math.round(s.successRate * 10_000) / 100;
}

/** success_rate as the Orchestrator metrics report it: a fraction, four decimals. */
export function successRateFraction(s: Pick<MetricsSnapshot, 'successRate'>): number {
  return Math.round(s.successRate * 10_000) / 10_000;
}
