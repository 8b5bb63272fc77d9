import type { SqlDialect } from './lexer.js';
import type { TableName } from './names.js';

export type AstNode = Record<string, unknown>;

/** A function as called: `schema` when the call names one (`pg_catalog.lower`, MySQL `db.fn`). */
export interface FunctionCall {
  schema?: string;
  name: string;
}

/** What the guard judges, gathered in one walk over node-sql-parser's AST. */
export interface AstFacts {
  /** Statement types that change data, found anywhere (data-modifying CTEs, nested statements). */
  writes: string[];
  /** Every call, in the order met: functions, aggregates, window functions, SQL keywords that are calls. */
  functions: FunctionCall[];
  /** Every real table named anywhere; a name that a CTE in scope defines is not one. */
  tables: TableName[];
  /** MySQL `@@system` and `@user` variables, as written. */
  variables: string[];
  /**
   * Type names, lower-cased: cast targets (`CAST(x AS t)`, `x::t`, each of a `::` chain), column and other
   * definitions, and the type of every literal node (`date` of `DATE '…'`, also `single_quote_string` of `'…'`).
   * NB: a typed literal is `{type: 'date', value}` in node-sql-parser, so a type it learns to read that way
   * (`regclass 'x'`) comes out here too; the guard looks only for the types it refuses.
   */
  types: string[];
  selectInto: boolean;
  lockingRead: boolean;
}

const WRITES = new Set([
  'insert',
  'update',
  'delete',
  'replace',
  'create',
  'drop',
  'alter',
  'truncate',
  'rename',
  'grant',
  'revoke',
  'call',
  'set',
  'lock',
  'unlock',
  'load_data',
  'exec',
  'execute',
  'transaction',
  'declare',
  'copy',
]);

/**
 * SQL keywords that are calls without parentheses and that node-sql-parser reads as bare column names.
 * PostgreSQL reserves them (a column of that name must be quoted), MySQL only these.
 */
const KEYWORD_CALLS: Record<SqlDialect, ReadonlySet<string>> = {
  postgresql: new Set([
    'user',
    'current_user',
    'session_user',
    'system_user',
    'current_role',
    'current_catalog',
    'current_schema',
    'current_date',
    'current_time',
    'current_timestamp',
    'localtime',
    'localtimestamp',
  ]),
  mysql: new Set([
    'current_user',
    'current_role',
    'current_date',
    'current_time',
    'current_timestamp',
    'localtime',
    'localtimestamp',
    'utc_date',
    'utc_time',
    'utc_timestamp',
  ]),
};

/** The CTE names visible at a point of the statement. */
type Scope = ReadonlySet<string>;
const NO_CTES: Scope = new Set();

/**
 * Walks every object of the AST. NB: node-sql-parser's node shapes differ across versions and dialects, so
 * the walk looks at fields by name wherever they occur rather than by a fixed schema; a shape it does not
 * know leaves a name counted as a table or a call, which the guard then refuses (fail closed).
 *
 * CTE names are resolved by scope, as the servers do: a WITH's names are visible in its own statement (the
 * main query with its subqueries, and the members of a set operation it heads unless it sits in parentheses),
 * in its later CTEs, and in its own CTE if RECURSIVE (in PostgreSQL, every CTE of a RECURSIVE WITH); nowhere
 * else. So `SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)` names the table.
 */
export function collectFacts(root: AstNode, dialect: SqlDialect): AstFacts {
  const facts: AstFacts = {
    writes: [],
    functions: [],
    tables: [],
    variables: [],
    types: [],
    selectInto: false,
    lockingRead: false,
  };
  // NB: the nodes on the current path, against cycles; a subtree met twice is walked twice (its scope may differ)
  const path = new Set<object>();

  const visit = (node: unknown, scope: Scope, isRoot = false, heads = true): void => {
    if (node === null || typeof node !== 'object' || path.has(node)) return;
    path.add(node);
    if (Array.isArray(node)) {
      for (const n of node) visit(n, scope);
    } else {
      const o = node as AstNode;
      judge(o, scope, isRoot);
      const inner = Array.isArray(o.with) && o.with.length > 0 ? visitWith(o.with as AstNode[], scope) : scope;
      for (const [k, v] of Object.entries(o)) {
        if (k === 'with' && inner !== scope) continue;
        // the next member of a set operation: inside the WITH only when this node heads the chain, unparenthesised
        if (k === '_next') visit(v, heads && o.parentheses_symbol !== true ? inner : scope, false, false);
        // a table function's alias with column types (`AS t(a int)`) has the shape of a call
        else if (k === 'as' && o.type === 'tablefunc' && v && typeof v === 'object') visit((v as AstNode).args, inner);
        else visit(v, inner);
      }
    }
    path.delete(node);
  };

  /** Walks each CTE with the names it may see; answers the scope of the WITH's main query. */
  const visitWith = (ctes: AstNode[], outer: Scope): Scope => {
    const names = ctes.map((c) => identName(c.name));
    const recursive = ctes.some((c) => c.recursive === true);
    ctes.forEach((c, i) => {
      const visible = recursive && dialect === 'postgresql' ? names : names.slice(0, recursive ? i + 1 : i);
      visit(c, new Set([...outer, ...visible]));
    });
    return new Set([...outer, ...names]);
  };

  const judge = (o: AstNode, scope: Scope, isRoot: boolean): void => {
    const type = typeof o.type === 'string' ? o.type.toLowerCase() : undefined;
    const statementLike = 'table' in o || 'ast' in o || 'keyword' in o || 'columns' in o || 'from' in o;
    if (type && !isRoot && WRITES.has(type) && statementLike) facts.writes.push(type);
    if (type === 'function' || type === 'tablefunc') facts.functions.push(callName(o.name, dialect));
    else if (type === 'aggr_func' || type === 'window_func')
      facts.functions.push({ name: String(o.name).toLowerCase() });
    else if (type === 'column_ref') {
      const keyword = keywordCall(o, dialect);
      if (keyword !== undefined) facts.functions.push({ name: keyword });
    } else if (type === 'var' && (o.prefix === '@' || o.prefix === '@@')) {
      facts.variables.push(`${o.prefix}${[o.name, ...(Array.isArray(o.members) ? o.members : [])].join('.')}`);
    }
    if (typeof o.dataType === 'string') facts.types.push(o.dataType.toLowerCase());
    else if (type !== undefined && typeof o.value === 'string') facts.types.push(type);
    if (isInto(o.into)) facts.selectInto = true;
    if (o.locking_read) facts.lockingRead = true;
    if (typeof o.table === 'string' && 'db' in o && type !== 'column_ref') {
      // NB: `db.schema.table` (PostgreSQL) names a table of the current database only, so the schema is what counts
      const schema =
        typeof o.schema === 'string' && o.schema ? o.schema : typeof o.db === 'string' && o.db ? o.db : undefined;
      if (schema !== undefined) facts.tables.push({ schema, name: o.table });
      else if (!scope.has(o.table)) facts.tables.push({ name: o.table });
    }
  };

  visit(root, NO_CTES, true);
  return facts;
}

function isInto(into: unknown): boolean {
  if (!into || typeof into !== 'object') return false;
  const i = into as AstNode;
  return i.expr !== undefined && i.expr !== null;
}

function identName(n: unknown): string {
  if (typeof n === 'string') return n;
  if (n && typeof n === 'object' && 'value' in n) return String((n as AstNode).value);
  return '';
}

/**
 * `{name: [{type, value}], schema?}` (5.x), or a plain string in older shapes. A name is lower-cased (in
 * PostgreSQL's view unquoted names are folded already, keywords come in the parser's case, and MySQL function
 * names ignore case) unless PostgreSQL quoted it; a MySQL qualifier is a database name, kept as written (it is
 * case-sensitive on Linux).
 */
function callName(n: unknown, dialect: SqlDialect): FunctionCall {
  if (typeof n === 'string') return { name: n.toLowerCase() };
  const o = (n && typeof n === 'object' ? n : {}) as AstNode;
  const quoted = (p: unknown) => dialect === 'postgresql' && (p as AstNode | undefined)?.type === 'double_quote_string';
  const text = (p: unknown, keepCase: boolean) => (keepCase ? identName(p) : identName(p).toLowerCase());
  const parts: unknown[] = Array.isArray(o.name) ? o.name : [];
  const last = parts[parts.length - 1];
  const qualifier = [o.schema, ...parts.slice(0, -1)]
    .filter((p) => p !== undefined && p !== null)
    .map((p) => text(p, dialect === 'mysql' || quoted(p)));
  const name = last === undefined ? '' : text(last, quoted(last));
  return qualifier.length > 0 ? { schema: qualifier.join('.'), name } : { name };
}

/** A bare column name that the server reads as a call (`SELECT user` in PostgreSQL), else undefined. */
function keywordCall(o: AstNode, dialect: SqlDialect): string | undefined {
  if (o.table !== null && o.table !== undefined && o.table !== '') return undefined;
  const col = o.column;
  // MySQL gives a plain string, quoted or not: a backquoted column of that name is refused too (fail closed)
  const name =
    typeof col === 'string' ? (dialect === 'mysql' ? col : undefined) : defaultIdent((col as AstNode | null)?.expr);
  return name !== undefined && KEYWORD_CALLS[dialect].has(name.toLowerCase()) ? name.toLowerCase() : undefined;
}

/** The value of an unquoted identifier node (`{type: 'default', value}`), else undefined. */
function defaultIdent(expr: unknown): string | undefined {
  const e = expr as AstNode | undefined;
  return e && e.type === 'default' && typeof e.value === 'string' ? e.value : undefined;
}
