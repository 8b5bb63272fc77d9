import { h, ordersOnly, type CorpusEntry } from './entry.js';

/** Reads past a connector's table allowlist (`orders` only): shadowing CTEs, quoted names, parser-lexer gaps. */
export const HOSTILE_TABLES: readonly CorpusEntry[] = [
  ordersOnly(
    h(
      'both',
      'SELECT * FROM customers WHERE EXISTS (WITH customers AS (SELECT 1) SELECT 1)',
      'CTE in a subquery shadows a table outside it',
    ),
  ),
  ordersOnly(
    h(
      'both',
      'WITH x AS (WITH customers AS (SELECT 1) SELECT 1) SELECT * FROM customers',
      'CTE inside a CTE shadows a table outside it',
    ),
  ),
  ordersOnly(
    h(
      'both',
      'WITH customers AS (SELECT * FROM customers) SELECT * FROM customers',
      'a non-recursive CTE naming itself reads the table',
    ),
  ),
  ordersOnly(
    h(
      'postgresql',
      '(WITH customers AS (SELECT 1 AS id) SELECT id FROM customers) UNION SELECT id FROM customers',
      'CTE in a parenthesised UNION member',
    ),
  ),
  ordersOnly(
    h(
      'postgresql',
      'SELECT usename FROM pg_shadow WHERE EXISTS (WITH pg_shadow AS (SELECT 1) SELECT 1)',
      'CTE shadowing pg_shadow',
    ),
  ),
  ordersOnly(
    h(
      'postgresql',
      "SELECT 'a\\' AS p, (SELECT name FROM customers LIMIT 1) AS q -- '\n FROM orders",
      "the parser reads \\' as an escaped quote",
    ),
  ),
  ordersOnly(
    h(
      'postgresql',
      'SELECT 1 /* /* */ */ , (SELECT name FROM customers LIMIT 1) AS q FROM orders',
      'nested comments, which the parser does not nest',
    ),
  ),
  ordersOnly(h('postgresql', 'SELECT * FROM "Orders"', 'a quoted name is another table')),
  ordersOnly(
    h(
      'mysql',
      'SELECT id --(SELECT ASCII(name) FROM customers LIMIT 1)\n FROM orders',
      'the parser reads --( as a comment',
    ),
  ),
  ordersOnly(h('mysql', 'SELECT * FROM ORDERS', 'another case is another table on Linux')),
];
