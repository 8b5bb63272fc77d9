import { describe, expect, it } from 'vitest';
import { functionJudge } from './index.js';
import { MYSQL_ALLOWED } from './mysql.js';
import { POSTGRES_ALLOWED } from './postgres.js';
import { MYSQL_DENIED, POSTGRES_DENIED } from './denied.js';

describe('functionJudge', () => {
  it('allows the built-in pure functions, bare or (PostgreSQL) in pg_catalog, and nothing else', () => {
    const pg = functionJudge('postgresql', {});
    expect(pg({ name: 'lower' })).toBeUndefined();
    expect(pg({ schema: 'pg_catalog', name: 'lower' })).toBeUndefined();
    expect(pg({ schema: 'public', name: 'lower' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(pg({ name: 'Lower' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(pg({ name: 'version' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(pg({ name: 'ts_stat' })).toBe('DENIED_FUNCTION');
    expect(pg({ schema: 'pg_catalog', name: 'pg_sleep' })).toBe('DENIED_FUNCTION');
    const my = functionJudge('mysql', {});
    expect(my({ name: 'ifnull' })).toBeUndefined();
    expect(my({ schema: 'test', name: 'ifnull' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(my({ name: 'user' })).toBe('FUNCTION_NOT_ALLOWED');
  });

  it('adds allowedFunctions: bare names, prefixes, and schema-qualified user functions', () => {
    const pg = functionJudge('postgresql', {
      allowedFunctions: ['current_setting', 'st_*', 'reports.monthly', '"Weird"'],
    });
    expect(pg({ name: 'current_setting' })).toBeUndefined();
    expect(pg({ schema: 'pg_catalog', name: 'current_setting' })).toBeUndefined();
    expect(pg({ name: 'st_distance' })).toBeUndefined();
    expect(pg({ schema: 'reports', name: 'monthly' })).toBeUndefined();
    expect(pg({ name: 'monthly' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(pg({ schema: 'other', name: 'monthly' })).toBe('FUNCTION_NOT_ALLOWED');
    expect(pg({ name: 'Weird' })).toBeUndefined();
    const my = functionJudge('mysql', { allowedFunctions: ['VERSION', 'Shop.Total'] });
    expect(my({ name: 'version' })).toBeUndefined();
    expect(my({ schema: 'Shop', name: 'total' })).toBeUndefined();
    expect(my({ schema: 'shop', name: 'total' })).toBe('FUNCTION_NOT_ALLOWED');
  });

  it('lets denial win: deniedFunctions over the built-in list, the built-in deny list over allowedFunctions', () => {
    expect(functionJudge('postgresql', { deniedFunctions: ['Upper'] })({ name: 'upper' })).toBe('DENIED_FUNCTION');
    expect(
      functionJudge('postgresql', { allowedFunctions: ['my_fn'], deniedFunctions: ['my_*'] })({ name: 'my_fn' }),
    ).toBe('DENIED_FUNCTION');
    expect(functionJudge('mysql', { allowedFunctions: ['sleep'] })({ name: 'sleep' })).toBe('DENIED_FUNCTION');
  });

  it('keeps the built-in lists apart: nothing both allowed and denied, nothing that reads the session or server', () => {
    const denied = (list: readonly string[], name: string) =>
      list.some((d) => (d.endsWith('*') ? name.startsWith(d.slice(0, -1)) : d === name));
    expect(POSTGRES_ALLOWED.filter((n) => denied(POSTGRES_DENIED, n))).toEqual([]);
    expect(MYSQL_ALLOWED.filter((n) => denied(MYSQL_DENIED, n))).toEqual([]);
    expect(POSTGRES_ALLOWED.filter((n) => n.startsWith('pg_') && n !== 'pg_typeof')).toEqual([]);
    const session = [
      'user',
      'current_user',
      'session_user',
      'system_user',
      'current_role',
      'version',
      'database',
      'schema',
      'connection_id',
      'current_setting',
      'current_schema',
      'current_database',
      'inet_server_addr',
      'last_insert_id',
      'uuid',
    ];
    expect([...POSTGRES_ALLOWED, ...MYSQL_ALLOWED].filter((n) => session.includes(n))).toEqual([]);
  });
});
