import nodeSqlParser from 'node-sql-parser';
import { catalogCast } from './catalog.js';
import { callText, functionJudge, type FunctionJudge } from './functions/index.js';
import { lexSql, type LexResult, type SqlDialect } from './lexer.js';
import { allowedTableSet, defaultSchemaFor, qualifiedTable } from './names.js';
import { refuse } from './refusal.js';
import { explainPrefix, skipTrivia, statementLimit, withLimit } from './text.js';
import { collectFacts, type AstNode } from './walk.js';

export type { SqlRefusal } from './refusal.js';

/**
 * The SQL guard: one statement, parsed, judged on its AST. Pure (no I/O), so the gateway can run it
 * before policy and give Rego `{operation, tables}`.
 *
 * Parser: node-sql-parser 5.x (PEG grammars for both PostgreSQL and MySQL, pure JS, maintained). Measured
 * on the corpus (sql/test/corpus/): ~0.1–0.5 ms a statement once warm, no stall on hostile input (inputs are
 * capped at 100 kB, and a statement it cannot parse is refused). pgsql-ast-parser is PostgreSQL-only and
 * fails on EXPLAIN and SELECT INTO; libpg-query is the real PostgreSQL parser but WASM and PostgreSQL-only,
 * so MySQL would need a second parser anyway. Where node-sql-parser and the server read text differently
 * (backslashes in strings, `--` in MySQL, nested comments, executable comments), the lexer decides with the
 * server's rules: the parser only ever sees the lexer's view of the text (lexer.ts), never the text itself.
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
  /** Only SELECT / WITH…SELECT / EXPLAIN of those, with the function allowlist. */
  readOnly: boolean;
  /**
   * Schema-qualified or bare names; bare ones mean `defaultSchema`. Absent: any table. When set, the
   * function allowlist and the server-variable refusal apply also on a read-write connector.
   */
  allowedTables?: readonly string[];
  defaultSchema?: string;
  /** LIMIT added to a read when missing, or imposed over a larger one. */
  forceLimit?: number;
  /** Functions allowed on top of the built-in list (functions/index.ts). */
  allowedFunctions?: readonly string[];
  /** Functions refused even when allowed. */
  deniedFunctions?: readonly string[];
}

/** What policies see as `input.mcp.sql`. */
export interface SqlSummary {
  operation: string;
  tables: string[];
  /**
   * The statement's own LIMIT (its row count) as written, before the connector's forced cap; a `$n` count is read
   * from the call's parameters. null: none (no LIMIT, `LIMIT ALL`, a count that is neither).
   */
  limit: number | null;
}

export interface GuardedSql {
  /** The statement to run: without a trailing `;` or comment, with the forced LIMIT. */
  text: string;
  summary: SqlSummary;
  /** The `$n` parameter that gives the statement's LIMIT, when one does (`summary.limit` is then null). */
  limitParam?: number;
  lex: LexResult;
}

/** What one options object compiles to, once (GuardCache keeps one options object per connector). */
interface Compiled {
  schema: string;
  allowedTables?: ReadonlySet<string>;
  judge: FunctionJudge;
}
const compiled = new WeakMap<SqlGuardOptions, Compiled>();

function compile(o: SqlGuardOptions): Compiled {
  let c = compiled.get(o);
  if (!c) {
    const schema = defaultSchemaFor(o.dialect, o.defaultSchema);
    const allowedTables = o.allowedTables && allowedTableSet(o.allowedTables, o.dialect, schema);
    c = { schema, allowedTables, judge: functionJudge(o.dialect, o) };
    compiled.set(o, c);
  }
  return c;
}

export function guardSql(statement: string, options: SqlGuardOptions): GuardedSql {
  const { dialect } = options;
  if (statement.length > MAX_STATEMENT_CHARS) refuse('TOO_LONG', `longer than ${MAX_STATEMENT_CHARS} characters`);
  const { view, ...lex } = lexSql(statement, dialect, { view: true });
  if (lex.unterminated) refuse('UNTERMINATED', 'a string, identifier or comment is not closed');
  if (lex.tokens > MAX_STATEMENT_TOKENS) refuse('TOO_COMPLEX', `more than ${MAX_STATEMENT_TOKENS} tokens`);
  if (lex.executableComment) refuse('EXECUTABLE_COMMENT', 'MySQL executable comments (/*! */) are not allowed');
  if (lex.separators.some((s) => s < lex.contentEnd)) refuse('STACKED_QUERIES', 'one statement per call');
  const body = statement.slice(0, lex.contentEnd);
  const seen = view.slice(0, lex.contentEnd);
  const start = skipTrivia(seen, 0, dialect);
  if (start >= seen.length) refuse('EMPTY', 'no statement');

  const c = compile(options);
  const explain = explainPrefix(seen, start, dialect);
  const ast = parse(explain === undefined ? seen : seen.slice(explain), dialect);
  const facts = collectFacts(ast, dialect);
  const type = String(ast.type).toLowerCase();
  // NB: node-sql-parser reads PostgreSQL `FROM ONLY t` as a table named "only" and `FROM ONLY (t)` as a call:
  // either way `t` would be missing from the tables policies see
  const only = [...facts.tables, ...facts.functions].some((n) => n.name === 'only' && n.schema === undefined);
  if (dialect === 'postgresql' && only) refuse('PARSE_ERROR', 'FROM ONLY is not supported');
  const tables = [...new Set(facts.tables.map((t) => qualifiedTable(t, dialect, c.schema)))].sort();
  const own = explain === undefined ? statementLimit(ast) : null;
  const summary: SqlSummary = {
    operation: explain === undefined ? type : 'explain',
    tables,
    limit: typeof own === 'number' ? own : null,
  };

  if (options.readOnly) {
    if (type !== 'select') refuse('NOT_READ_ONLY', `${type.toUpperCase()} on a read-only connector`);
    if (facts.writes.length > 0) refuse('DATA_MODIFYING', `${facts.writes[0]!.toUpperCase()} inside a read`);
    if (facts.selectInto) refuse('SELECT_INTO', 'SELECT … INTO writes');
    if (facts.lockingRead) refuse('LOCKING_READ', 'FOR UPDATE / FOR SHARE takes locks');
  }
  // A confined connector: its statements may read only what the allowlist and the function list let through.
  if (options.readOnly || c.allowedTables) {
    if (dialect === 'mysql' && facts.variables.length > 0)
      refuse('SERVER_VARIABLE', `variable ${facts.variables[0]} is not allowed`);
    if (type === 'set') refuse('SERVER_VARIABLE', 'SET changes the session settings the guard relies on');
    // NB: before the function list: `regclass('x')` is a cast, whatever allowedFunctions says
    const cast = catalogCast(facts, dialect);
    if (cast !== undefined) refuse('CATALOG_CAST', `a cast to ${cast} reads names from the catalogue`);
    for (const call of facts.functions) {
      const reason = c.judge(call);
      if (reason === 'DENIED_FUNCTION') refuse(reason, `function ${callText(call)}() is denied`);
      if (reason === 'FUNCTION_NOT_ALLOWED')
        refuse(reason, `function ${callText(call)}() is not in the allowlist (allowedFunctions)`);
    }
  }
  if (c.allowedTables) {
    const bad = tables.find((t) => !c.allowedTables!.has(t));
    if (bad !== undefined) refuse('TABLE_NOT_ALLOWED', `table ${bad} is not in the allowlist`);
  }
  const limited = options.forceLimit !== undefined && explain === undefined && type === 'select';
  return {
    text: limited ? withLimit(body, ast, options.forceLimit!) : body,
    summary,
    ...(own !== null && typeof own === 'object' ? { limitParam: own.param } : {}),
    lex,
  };
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
