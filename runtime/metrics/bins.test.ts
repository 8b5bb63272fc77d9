import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BIN_COUNT, MAX_TRACKED_US, binMidUs, binOf, percentilesUs } from './bins.js';

describe('latency bins', () => {
  it('keeps values below 64 µs exact', () => {
    for (let us = 0; us < 64; us++) expect(binMidUs(binOf(us))).toBe(us);
  });

  it('reports every value within 1/64 of itself (half a bin width)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TRACKED_US }), (us) => {
        const bin = binOf(us);
        expect(bin).toBeGreaterThanOrEqual(0);
        expect(bin).toBeLessThan(BIN_COUNT);
        expect(Math.abs(binMidUs(bin) - us)).toBeLessThanOrEqual(us / 64 + 0.5);
      }),
      { numRuns: 5000 },
    );
  });

  it('orders bins as it orders values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TRACKED_US }), fc.integer({ min: 0, max: MAX_TRACKED_US }), (a, b) => {
        if (a <= b) expect(binOf(a)).toBeLessThanOrEqual(binOf(b));
      }),
    );
  });

  it('puts values past the top in the last bin', () => {
    expect(binOf(MAX_TRACKED_US * 4)).toBe(BIN_COUNT - 1);
  });
});

describe('percentilesUs', () => {
  it('picks the nearest rank', () => {
    const bins = new Uint32Array(BIN_COUNT);
    for (const us of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) bins[binOf(us)]!++;
    expect(percentilesUs(bins, 10, [0.5, 0.9, 0.95, 1], [])).toEqual([5, 9, 10, 10]);
  });

  it('answers 0 for no samples', () => {
    expect(percentilesUs(new Uint32Array(BIN_COUNT), 0, [0.5, 0.99], [])).toEqual([0, 0]);
  });
});
