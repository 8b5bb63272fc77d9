import nodeSqlParser from 'node-sql-parser';
import { ConnectorError } from '../errors.js';
import { deniedFunctionMatcher } from './deny.js';
import { lexSql, type LexResult, type SqlDialect } from './lexer.js';
import { collectFacts, type AstNode } from './walk.js';

/**
 * The SQL guard: one statement, parsed, judged on its AST. Pure (no I/O), so the gateway can run it
 * before policy and give Rego `{operation, tables}`.
 *
 * Parser: node-sql-parser 5.x (PEG grammars for both PostgreSQL and MySQL, pure JS, maintained). Measured
 * on the corpus (sql/corpus.ts): ~0.1–0.5 ms a statement once warm, no stall on hostile input (inputs are
 * capped at 100 kB, and a statement it cannot parse is refused). pgsql-ast-parser is PostgreSQL-only and
 * fails on EXPLAIN and SELECT INTO; libpg-query is the real PostgreSQL parser but WASM and PostgreSQL-only,
 * so MySQL would need a second parser anyway. Where node-sql-parser and the server read text differently
 * (backslashes in PostgreSQL strings, MySQL executable comments), lexer.ts decides with the server's rules.
 */
const parser = new nodeSqlParser.Parser();

export const MAX_STATEMENT_CHARS = 64 * 1024;
/**
 * NB: node-sql-parser's cost grows with tokens, worst for long select lists (~40–75 µs a column warm
 * on this machine: a 16,000-column SELECT took 0.4–1.2 s), and the guard runs on the event loop. 2000
 * tokens keep the worst case measured near 75 ms; typical statements (<100 tokens) take ~0.2 ms.
 */
export const MAX_STATEMENT_TOKENS = 2000;

export interface SqlGuardOptions {
  dialect: SqlDialect;
  /** Only SELECT / WITH…SELECT / EXPLAIN of those, with the function deny list. */
  readOnly: boolean;
  /** Schema-qualified or bare names; bare ones mean `defaultSchema`. Absent: any table. */
  allowedTables?: readonly string[];
  defaultSchema?: string;
  /** LIMIT added to a read when missing, or imposed over a larger one. */
  forceLimit?: number;
  deniedFunctions?: readonly string[];
}

/** What policies see as `input.mcp.sql`. */
export interface SqlSummary {
  operation: string;
  tables: string[];
}

export interface GuardedSql {
  /** The statement to run: without a trailing `;` or comment, with the forced LIMIT. */
  text: string;
  summary: SqlSummary;
  lex: LexResult;
}

export type SqlRefusal =
  | 'EMPTY' | 'TOO_LONG' | 'TOO_COMPLEX' | 'UNTERMINATED' | 'EXECUTABLE_COMMENT' | 'STACKED_QUERIES' | 'PARSE_ERROR'
  | 'NOT_READ_ONLY' | 'DATA_MODIFYING' | 'SELECT_INTO' | 'LOCKING_READ' | 'DENIED_FUNCTION' | 'TABLE_NOT_ALLOWED';

const refuse = (reason: SqlRefusal, message: string): never => {
  throw new ConnectorError('SQL_REFUSED', `statement refused: ${message}`, { reason });
};

export function guardSql(statement: string, options: SqlGuardOptions): GuardedSql {
  if (statement.length > MAX_STATEMENT_CHARS) refuse('TOO_LONG', `longer than ${MAX_STATEMENT_CHARS} characters`);
  const lex = lexSql(statement, options.dialect);
  if (lex.unterminated) refuse('UNTERMINATED', 'a string, identifier or comment is not closed');
  if (lex.tokens > MAX_STATEMENT_TOKENS) refuse('TOO_COMPLEX', `more than ${MAX_STATEMENT_TOKENS} tokens`);
  if (lex.executableComment) refuse('EXECUTABLE_COMMENT', 'MySQL executable comments (/*! */) are not allowed');
  if (lex.separators.some((s) => s < lex.contentEnd)) refuse('STACKED_QUERIES', 'one statement per call');
  const body = statement.slice(0, lex.contentEnd);
  const start = skipTrivia(body, 0, options.dialect);
  if (start >= body.length) refuse('EMPTY', 'no statement');

  const explain = explainPrefix(body, start, options.dialect);
  const inner = explain === undefined ? body : body.slice(explain);
  const ast = parse(inner, options.dialect);
  const facts = collectFacts(ast);
  const operation = explain === undefined ? String(ast.type).toLowerCase() : 'explain';
  const tables = qualify(facts.tables, facts.cteNames, defaultSchemaOf(options));
  const summary = { operation, tables };

  if (options.readOnly) {
    if (String(ast.type).toLowerCase() !== 'select') refuse('NOT_READ_ONLY', `${String(ast.type).toUpperCase()} on a read-only connector`);
    if (facts.writes.length > 0) refuse('DATA_MODIFYING', `${facts.writes[0]!.toUpperCase()} inside a read`);
    if (facts.selectInto) refuse('SELECT_INTO', 'SELECT … INTO writes');
    if (facts.lockingRead) refuse('LOCKING_READ', 'FOR UPDATE / FOR SHARE takes locks');
    const denied = deniedFunctionMatcher(options.dialect, options.deniedFunctions ?? []);
    const bad = facts.functions.find(denied);
    if (bad !== undefined) refuse('DENIED_FUNCTION', `function ${bad}() is not allowed`);
  }
  if (options.allowedTables) {
    const allowed = new Set(qualify(options.allowedTables, new Set(), defaultSchemaOf(options)));
    const bad = tables.find((t) => !allowed.has(t));
    if (bad !== undefined) refuse('TABLE_NOT_ALLOWED', `table ${bad} is not in the allowlist`);
  }
  const limited = options.forceLimit !== undefined && explain === undefined && operation === 'select';
  return { text: limited ? withLimit(body, ast, options.forceLimit!) : body, summary, lex };
}

function parse(sql: string, dialect: SqlDialect): AstNode {
  let ast: unknown;
  try {
    ast = parser.astify(sql, { database: dialect === 'postgresql' ? 'PostgresQL' : 'MySQL' });
  } catch (e) {
    const loc = (e as { location?: { start?: { line: number; column: number } } }).location?.start;
    return refuse('PARSE_ERROR', loc ? `does not parse at line ${loc.line}, column ${loc.column}` : 'does not parse');
  }
  const list = Array.isArray(ast) ? ast : [ast];
  if (list.length !== 1) refuse('STACKED_QUERIES', 'one statement per call');
  return list[0] as AstNode;
}

const defaultSchemaOf = (o: SqlGuardOptions) => (o.defaultSchema ?? (o.dialect === 'postgresql' ? 'public' : '')).toLowerCase();

/** `schema.table`, lower-cased; bare names get the default schema; CTE names are not tables. */
function qualify(names: Iterable<string>, ctes: ReadonlySet<string>, schema: string): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    const n = raw.toLowerCase();
    if (!n.includes('.') && ctes.has(n)) continue;
    out.add(n.includes('.') || schema === '' ? n : `${schema}.${n}`);
  }
  return [...out].sort();
}

/**
 * Adds `LIMIT n` on its own line (a trailing `--` comment cannot swallow it), keeps a smaller literal
 * LIMIT, and wraps anything else (a larger or parameterised LIMIT, UNION/INTERSECT/EXCEPT).
 */
function withLimit(body: string, ast: AstNode, n: number): string {
  const limit = ast.limit as { seperator?: string; value?: { type?: string; value?: unknown }[] } | null | undefined;
  const values = limit?.value ?? [];
  if (ast._next === undefined || ast._next === null) {
    if (values.length === 0) return `${body}\nLIMIT ${n}`;
    const count = limit?.seperator === ',' ? values[1] : values[0];
    if (count?.type === 'number' && typeof count.value === 'number' && count.value <= n) return body;
  }
  return `SELECT * FROM (\n${body}\n) AS steward_limited LIMIT ${n}`;
}

/** Offset of the statement after `EXPLAIN [options]`, or undefined when it is not an EXPLAIN. */
function explainPrefix(body: string, start: number, dialect: SqlDialect): number | undefined {
  const m = /^explain\b/i.exec(body.slice(start, start + 8));
  if (!m) return undefined;
  let i = skipTrivia(body, start + m[0].length, dialect);
  if (dialect === 'postgresql' && body[i] === '(') {
    const close = body.indexOf(')', i);
    const opts = close < 0 ? '' : body.slice(i + 1, close);
    if (close < 0 || !/^[\sA-Za-z_,]*$/.test(opts)) refuse('PARSE_ERROR', 'EXPLAIN options do not parse');
    return skipTrivia(body, close + 1, dialect);
  }
  for (;;) {
    const word = /^(analyze|verbose|extended|partitions|format\s*=\s*(json|tree|traditional))\b/i.exec(body.slice(i, i + 40));
    if (!word) return i;
    i = skipTrivia(body, i + word[0].length, dialect);
  }
}

function skipTrivia(text: string, i: number, dialect: SqlDialect): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('--', i) || (dialect === 'mysql' && text[i] === '#')) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}
