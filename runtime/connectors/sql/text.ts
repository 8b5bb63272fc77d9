import type { SqlDialect } from './lexer.js';
import { refuse } from './refusal.js';
import type { AstNode } from './walk.js';

/** The guard's work on the statement's text rather than its tree: the EXPLAIN prefix and the forced LIMIT. */

/**
 * Adds `LIMIT n` on its own line (a trailing `--` comment cannot swallow it), keeps a smaller literal
 * LIMIT, and wraps anything else (a larger or parameterised LIMIT, UNION/INTERSECT/EXCEPT).
 */
export function withLimit(body: string, ast: AstNode, n: number): string {
  const limit = ast.limit as { seperator?: string; value?: { type?: string; value?: unknown }[] } | null | undefined;
  const values = limit?.value ?? [];
  if (ast._next === undefined || ast._next === null) {
    if (values.length === 0) return `${body}\nLIMIT ${n}`;
    const count = limit?.seperator === ',' ? values[1] : values[0];
    if (count?.type === 'number' && typeof count.value === 'number' && count.value <= n) return body;
  }
  return `SELECT * FROM (\n${body}\n) AS steward_limited LIMIT ${n}`;
}

/**
 * The statement's own LIMIT (its row count), before any forced cap: a number, the index of the `$n` parameter that
 * gives it, or null for none (no LIMIT, `LIMIT ALL`, or a count that is not a literal nor a `$n`).
 */
export function statementLimit(ast: AstNode): number | { param: number } | null {
  const limit = ast.limit as
    | { seperator?: string; value?: { type?: string; value?: unknown; name?: unknown; prefix?: unknown }[] }
    | null
    | undefined;
  const values = limit?.value ?? [];
  const count = limit?.seperator === ',' ? values[1] : values[0];
  if (!count) return null;
  if (count.type === 'number' && typeof count.value === 'number') return count.value;
  if (count.type === 'var' && count.prefix === '$' && typeof count.name === 'number') return { param: count.name };
  return null;
}

/** Offset of the statement after `EXPLAIN [options]`, or undefined when it is not an EXPLAIN. */
export function explainPrefix(body: string, start: number, dialect: SqlDialect): number | undefined {
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
    const word = /^(analyze|verbose|extended|partitions|format\s*=\s*(json|tree|traditional))\b/i.exec(
      body.slice(i, i + 40),
    );
    if (!word) return i;
    i = skipTrivia(body, i + word[0].length, dialect);
  }
}

export function skipTrivia(text: string, i: number, dialect: SqlDialect): number {
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
