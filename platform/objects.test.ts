import { describe, expect, it } from 'vitest';
import { definedFields } from './objects.js';

describe('definedFields', () => {
  it('drops the undefined fields and keeps every other value, falsy ones included', () => {
    const got = definedFields({ a: 1, b: undefined, c: null, d: '', e: 0, f: false });
    expect(got).toStrictEqual({ a: 1, c: null, d: '', e: 0, f: false });
    expect(Object.keys(got)).not.toContain('b');
  });
});
