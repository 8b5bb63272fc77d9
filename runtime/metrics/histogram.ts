/** Bucket bounds in ms: from 5 ms to a minute, the spread of an LLM gateway's calls. */
export const DEFAULT_LATENCY_BOUNDS_MS: readonly number[] = Object.freeze([
  5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000,
]);

/**
 * A lifetime histogram with fixed bucket bounds, the shape Prometheus histograms expose. Counts per bucket
 * are kept non-cumulative and summed when read.
 */
export class LatencyHistogram {
  readonly boundsMs: readonly number[];
  private readonly buckets: Float64Array; // one per bound, plus +Inf
  count = 0;
  sumMs = 0;

  constructor(boundsMs: readonly number[]) {
    if (
      boundsMs.length === 0 ||
      boundsMs.some((b, i) => !Number.isFinite(b) || b <= 0 || (i > 0 && b <= boundsMs[i - 1]!))
    ) {
      throw new RangeError('histogram bounds must be finite, positive and strictly ascending');
    }
    this.boundsMs = Object.freeze([...boundsMs]);
    this.buckets = new Float64Array(boundsMs.length + 1);
  }

  observe(ms: number): void {
    let i = 0;
    // NB: a linear scan beats binary search for the dozen bounds histograms have.
    while (i < this.boundsMs.length && ms > this.boundsMs[i]!) i++;
    this.buckets[i]!++;
    this.count++;
    this.sumMs += ms;
  }

  /** Cumulative counts per bound (≤ bound), without the +Inf bucket (which equals `count`). */
  cumulative(): number[] {
    const out: number[] = [];
    let acc = 0;
    for (let i = 0; i < this.boundsMs.length; i++) out.push((acc += this.buckets[i]!));
    return out;
  }
}
