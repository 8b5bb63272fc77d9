import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-time.js';

describe('isoTimestamp', () => {
  it('equals toISOString for alternating, repeated and new instants', () => {
    const base = Date.UTC(2026, 10, 21, 7, 0, 0, 123);
    const instants = [base, base + 300_000, base, base + 300_000, base + 1, base + 300_001, base + 1, -1, 0, 8.64e15];
    for (const t of instants) expect(isoTimestamp(new Date(t))).toBe(new Date(t).toISOString());
  });
});
