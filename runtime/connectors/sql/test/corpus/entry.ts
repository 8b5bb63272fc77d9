/** One statement of the SQL guard corpus (../../corpus.ts), and the builders the corpus lists are written with. */
export type CorpusDialect = 'postgresql' | 'mysql' | 'both';

export interface CorpusEntry {
  verdict: 'benign' | 'hostile';
  dialect: CorpusDialect;
  sql: string;
  params?: unknown[];
  /** What the entry tries (hostile) or shows (benign). */
  note: string;
  /** The connector's allowlist (bare names: the fixture's schema or database). Absent: any table. */
  allowedTables?: string[];
}

/** A statement the guard must allow (and the server must run), with its parameters. */
export const b = (dialect: CorpusDialect, sql: string, note: string, params?: unknown[]): CorpusEntry => ({
  verdict: 'benign',
  dialect,
  sql,
  note,
  params,
});
/** A statement the guard must refuse. */
export const h = (dialect: CorpusDialect, sql: string, note: string): CorpusEntry => ({
  verdict: 'hostile',
  dialect,
  sql,
  note,
});
/** An entry for a connector that may read `orders` only. */
export const ordersOnly = (e: CorpusEntry): CorpusEntry => ({ ...e, allowedTables: ['orders'] });
