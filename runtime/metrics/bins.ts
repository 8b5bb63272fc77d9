/*
 * Log-linear latency bins over integer microseconds, in the manner of HdrHistogram: exact below 64 µs, then
 * 32 bins per power of two, so any value lands in a bin at most 1/32 (3.1%) of its value wide. The top bin
 * ends at 2^31 µs (about 36 minutes); longer values are counted there.
 */
const SUB_BITS = 5;
const SUB_COUNT = 1 << SUB_BITS; // 32
const LINEAR_LIMIT = SUB_COUNT * 2; // 64: below this, one bin per microsecond
export const MAX_TRACKED_US = 2 ** 31 - 1;
export const BIN_COUNT = LINEAR_LIMIT + (30 - SUB_BITS) * SUB_COUNT; // 864

/** The bin of a latency in microseconds (an integer ≥ 0). */
export function binOf(us: number): number {
  if (us < LINEAR_LIMIT) return us;
  if (us > MAX_TRACKED_US) us = MAX_TRACKED_US;
  const msb = 31 - Math.clz32(us); // ≥ 6
  const shift = msb - SUB_BITS;
  return LINEAR_LIMIT + (msb - SUB_BITS - 1) * SUB_COUNT + ((us >>> shift) - SUB_COUNT);
}

/** The middle of a bin's range in microseconds: the value a percentile falling in that bin reports. */
export function binMidUs(bin: number): number {
  if (bin < LINEAR_LIMIT) return bin;
  const octave = (bin - LINEAR_LIMIT) >> SUB_BITS;
  const sub = (bin - LINEAR_LIMIT) & (SUB_COUNT - 1);
  const shift = octave + 1;
  const low = (SUB_COUNT + sub) * 2 ** shift;
  return low + (2 ** shift - 1) / 2;
}

/**
 * Several percentiles in one pass over merged bins, by nearest rank (the smallest value with at least q of
 * the samples at or below it). `quantiles` ascending in (0, 1]; results in microseconds.
 */
export function percentilesUs(bins: Uint32Array, total: number, quantiles: readonly number[], out: number[]): number[] {
  out.length = quantiles.length;
  if (total === 0) return out.fill(0);
  let q = 0;
  let rank = Math.max(1, Math.ceil(quantiles[0]! * total));
  let seen = 0;
  for (let b = 0; b < bins.length && q < quantiles.length; b++) {
    seen += bins[b]!;
    while (q < quantiles.length && seen >= rank) {
      out[q++] = binMidUs(b);
      if (q < quantiles.length) rank = Math.max(1, Math.ceil(quantiles[q]! * total));
    }
  }
  return out;
}
