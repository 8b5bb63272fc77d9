import { describe, expect, it } from 'vitest';
import { catalogCast } from './catalog.js';

describe('catalogCast', () => {
  it.each([
    ['a cast target or typed literal', { types: ['int', 'regclass'], functions: [] }, 'regclass'],
    ['a cast written as a call', { types: [], functions: [{ name: 'regrole' }] }, 'regrole'],
    [
      'a cast written as a call in pg_catalog',
      { types: [], functions: [{ schema: 'pg_catalog', name: 'regtype' }] },
      'regtype',
    ],
    ['regdatabase, of newer servers', { types: ['regdatabase'], functions: [] }, 'regdatabase'],
    ['oid, which names nothing', { types: ['oid', 'text'], functions: [] }, undefined],
    [
      'a function of another schema that has the name',
      { types: [], functions: [{ schema: 'app', name: 'regclass' }] },
      undefined,
    ],
    ['to_regclass, a function (off the allowlist)', { types: [], functions: [{ name: 'to_regclass' }] }, undefined],
  ])('PostgreSQL: %s', (_name, facts, expected) => {
    expect(catalogCast(facts, 'postgresql')).toBe(expected);
  });

  it('finds none in MySQL, which has no such types', () => {
    expect(catalogCast({ types: ['regclass'], functions: [{ name: 'regclass' }] }, 'mysql')).toBeUndefined();
  });
});
