export type AstNode = Record<string, unknown>;

/** What the guard judges, gathered in one walk over node-sql-parser's AST. */
export interface AstFacts {
  /** Statement types that change data, found anywhere (data-modifying CTEs, nested statements). */
  writes: string[];
  functions: string[];
  tables: Set<string>;
  cteNames: Set<string>;
  selectInto: boolean;
  lockingRead: boolean;
}

const WRITES = new Set([
  'insert', 'update', 'delete', 'replace', 'create', 'drop', 'alter', 'truncate', 'rename', 'grant', 'revoke',
  'call', 'set', 'lock', 'unlock', 'load_data', 'exec', 'execute', 'transaction', 'declare', 'copy',
]);

/**
 * Walks every object of the AST. NB: node-sql-parser's node shapes differ across versions and
 * dialects, so the walk looks at fields by name wherever they occur rather than by a fixed schema.
 */
export function collectFacts(root: AstNode): AstFacts {
  const facts: AstFacts = { writes: [], functions: [], tables: new Set(), cteNames: new Set(), selectInto: false, lockingRead: false };
  const seen = new Set<unknown>();
  const visit = (node: unknown, isRoot: boolean): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const n of node) visit(n, false);
      return;
    }
    const o = node as AstNode;
    const type = typeof o.type === 'string' ? o.type.toLowerCase() : undefined;
    if (type && !isRoot && WRITES.has(type) && ('table' in o || 'ast' in o || 'keyword' in o || 'columns' in o || 'from' in o)) facts.writes.push(type);
    if (type === 'function') facts.functions.push(functionName(o.name));
    if (isInto(o.into)) facts.selectInto = true;
    if (o.locking_read) facts.lockingRead = true;
    if (Array.isArray(o.with)) for (const c of o.with as AstNode[]) facts.cteNames.add(identName(c.name).toLowerCase());
    if (typeof o.table === 'string' && 'db' in o && type !== 'column_ref') {
      facts.tables.add(typeof o.db === 'string' && o.db ? `${o.db}.${o.table}` : o.table);
    }
    for (const v of Object.values(o)) visit(v, false);
  };
  visit(root, true);
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

/** `{name: [{value}], schema?}` (5.x), or a plain string in older shapes; the bare name, lower-cased. */
function functionName(n: unknown): string {
  if (typeof n === 'string') return n.toLowerCase();
  if (n && typeof n === 'object') {
    const parts = (n as AstNode).name;
    if (Array.isArray(parts) && parts.length > 0) return identName(parts[parts.length - 1]).toLowerCase();
  }
  return '';
}
