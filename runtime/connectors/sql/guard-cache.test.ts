import { describe, expect, it } from 'vitest';
import { GuardCache } from './guard-cache.js';

const cache = () => new GuardCache({ dialect: 'postgresql', readOnly: true, forceLimit: 11 });

describe('GuardCache', () => {
  it('parses an accepted statement once and shares the frozen result', () => {
    const c = cache();
    const first = c.guard('SELECT * FROM orders WHERE id = $1');
    expect(first.text).toContain('LIMIT 11');
    expect(c.guard('SELECT * FROM orders WHERE id = $1')).toBe(first);
    expect(Object.isFrozen(first.summary.tables)).toBe(true);
  });

  it('refuses a hostile statement every time and keeps no refusal', () => {
    const c = cache();
    for (let i = 0; i < 2; i++)
      expect(() => c.guard('SELECT 1; DROP TABLE orders')).toThrow(
        expect.objectContaining({ code: 'SQL_REFUSED', reason: 'STACKED_QUERIES' }),
      );
  });

  it("keeps one connector's verdicts apart from another's options", () => {
    const readWrite = new GuardCache({ dialect: 'postgresql', readOnly: false });
    expect(readWrite.guard('DELETE FROM orders WHERE id = $1').summary.operation).toBe('delete');
    expect(() => cache().guard('DELETE FROM orders WHERE id = $1')).toThrow(
      expect.objectContaining({ reason: 'NOT_READ_ONLY' }),
    );
  });

  it('evicts the least recently used statement past its size', () => {
    const c = cache();
    const first = c.guard('SELECT 0 AS n');
    for (let i = 1; i <= 512; i++) c.guard(`SELECT ${i} AS n`);
    expect(c.guard('SELECT 0 AS n')).not.toBe(first);
    expect(c.guard('SELECT 0 AS n')).toEqual(first);
  });
});
