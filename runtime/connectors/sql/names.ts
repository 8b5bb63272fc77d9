import type { SqlDialect } from './lexer.js';

/**
 * Names as the server resolves them. PostgreSQL folds unquoted identifiers to lower case and keeps quoted
 * ones exactly; the guard parses a view of the statement in which unquoted words are already folded
 * (lexer.ts), so a name from the AST is compared exactly. MySQL: names are compared exactly as written,
 * quoted or not. NB: that is the server's rule under lower_case_table_names=0 (the Linux default, where
 * `Orders` and `orders` are two tables); under 1 or 2 the server also matches other cases, which the guard
 * then refuses (an allowlist entry must use the case the statements use), never the other way round.
 */

/** A table as a statement names it: `schema` is the PostgreSQL schema or the MySQL database. */
export interface TableName {
  schema?: string;
  name: string;
}

/**
 * Splits a configured name (`allowedTables`, `allowedFunctions`, `defaultSchema`) into its parts, read as
 * the dialect reads an identifier: PostgreSQL `public."Orders"` is `['public', 'Orders']` and `Sales.Orders`
 * is `['sales', 'orders']`; MySQL `` `test`.`Orders` `` and `test.Orders` are `['test', 'Orders']`.
 */
export function configuredName(entry: string, dialect: SqlDialect): string[] {
  const quote = dialect === 'postgresql' ? '"' : '`';
  const parts: string[] = [];
  let part = '';
  let quoted = false;
  for (let i = 0; i < entry.length; i++) {
    const c = entry[i]!;
    if (quoted) {
      if (c !== quote) part += c;
      else if (entry[i + 1] === quote) part += entry[++i];
      else quoted = false;
    } else if (c === quote) quoted = true;
    else if (c === '.') {
      parts.push(part);
      part = '';
    } else part += dialect === 'postgresql' ? c.replace(/[A-Z]/, (u) => u.toLowerCase()) : c;
  }
  parts.push(part);
  return parts;
}

/**
 * The default schema of unqualified tables: the option, or PostgreSQL's `public`, or the MySQL database
 * of the connection URL ('' when there is none: bare names stay bare).
 */
export function defaultSchemaFor(dialect: SqlDialect, option: string | undefined): string {
  if (option === undefined) return dialect === 'postgresql' ? 'public' : '';
  return configuredName(option, dialect).join('.');
}

/**
 * `schema.table` for the allowlist and for policies (`input.mcp.sql.tables`). NB: PostgreSQL searches
 * pg_catalog before the search_path, and the system catalogues are all named `pg_*`, so a bare `pg_shadow`
 * is `pg_catalog.pg_shadow`, not `public.pg_shadow` (a policy on the catalogue sees it). A user table named
 * `pg_*` must then be listed (and named) with its schema.
 */
export function qualifiedTable(t: TableName, dialect: SqlDialect, defaultSchema: string): string {
  if (t.schema !== undefined) return `${t.schema}.${t.name}`;
  if (dialect === 'postgresql' && t.name.startsWith('pg_')) return `pg_catalog.${t.name}`;
  return defaultSchema === '' ? t.name : `${defaultSchema}.${t.name}`;
}

/** The allowlist entries, qualified like the statement's tables. */
export function allowedTableSet(entries: readonly string[], dialect: SqlDialect, defaultSchema: string): Set<string> {
  return new Set(
    entries.map((e) => {
      const parts = configuredName(e, dialect);
      const name = parts.pop()!;
      return qualifiedTable({ schema: parts.length > 0 ? parts.join('.') : undefined, name }, dialect, defaultSchema);
    }),
  );
}
