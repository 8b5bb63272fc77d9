import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('makes prefixed URL-safe ids with 128 random bits', () => {
    expect(newId('ctx')).toMatch(/^ctx_[A-Za-z0-9_-]{22}$/);
  });

  it('does not repeat across pool refills', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId('x')));
    expect(ids.size).toBe(2000);
  });
});
