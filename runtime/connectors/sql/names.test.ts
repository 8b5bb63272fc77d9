import { describe, expect, it } from 'vitest';
import { allowedTableSet, configuredName, defaultSchemaFor, qualifiedTable } from './names.js';

describe('configuredName', () => {
  it.each([
    ['postgresql', 'public.orders', ['public', 'orders']],
    ['postgresql', 'Sales.Orders', ['sales', 'orders']],
    ['postgresql', 'public."Orders"', ['public', 'Orders']],
    ['postgresql', '"a.b"."c""d"', ['a.b', 'c"d']],
    ['mysql', 'test.Orders', ['test', 'Orders']],
    ['mysql', '`test`.`Orders`', ['test', 'Orders']],
  ] as const)('%s reads %s as %j', (dialect, entry, parts) => {
    expect(configuredName(entry, dialect)).toEqual(parts);
  });
});

describe('table names for the allowlist and for policies', () => {
  it('qualifies bare names with the default schema, and bare PostgreSQL pg_* names with pg_catalog', () => {
    expect(qualifiedTable({ name: 'orders' }, 'postgresql', 'public')).toBe('public.orders');
    expect(qualifiedTable({ name: 'pg_shadow' }, 'postgresql', 'public')).toBe('pg_catalog.pg_shadow');
    expect(qualifiedTable({ name: 'pg_shadow' }, 'mysql', 'test')).toBe('test.pg_shadow');
    expect(qualifiedTable({ name: 'orders' }, 'mysql', '')).toBe('orders');
    expect(qualifiedTable({ schema: 'sales', name: 'Orders' }, 'postgresql', 'public')).toBe('sales.Orders');
  });

  it('reads allowlist entries and the default schema as the dialect reads names', () => {
    expect([
      ...allowedTableSet(
        ['orders', 'Sales.Daily', '"Orders"', 'pg_class'],
        'postgresql',
        defaultSchemaFor('postgresql', undefined),
      ),
    ]).toEqual(['public.orders', 'sales.daily', 'public.Orders', 'pg_catalog.pg_class']);
    expect(defaultSchemaFor('postgresql', 'Reporting')).toBe('reporting');
    expect([...allowedTableSet(['Orders', '`db`.`t`'], 'mysql', defaultSchemaFor('mysql', 'Shop'))]).toEqual([
      'Shop.Orders',
      'db.t',
    ]);
  });
});
