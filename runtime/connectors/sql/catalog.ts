import type { SqlDialect } from './lexer.js';
import type { AstFacts, FunctionCall } from './walk.js';

/**
 * PostgreSQL's object identifier alias types that look names up in the catalogue. A cast to one turns a
 * number into the name of a relation, type, function, operator, role, schema, collation or text search
 * object, and a name into its oid (so tells whether it exists), without naming a catalogue table:
 * `CAST(CAST(g AS oid) AS regclass)` over `generate_series` lists every relation, `CAST(10 AS regrole)` is
 * the bootstrap superuser. `oid` itself names nothing and stays allowed. `regdatabase` is in
 * newer servers than the PostgreSQL 15 the tests run on; listed so that they are covered too.
 */
const POSTGRES_CATALOG_TYPES: ReadonlySet<string> = new Set([
  'regclass',
  'regcollation',
  'regconfig',
  'regdatabase',
  'regdictionary',
  'regnamespace',
  'regoper',
  'regoperator',
  'regproc',
  'regprocedure',
  'regrole',
  'regtype',
]);

/**
 * The catalogue type a statement casts to, or undefined: a cast target (`CAST(x AS t)`, `x::t`), a column or
 * other definition, a typed literal (`regclass 'x'`), or a cast written as a call (`regclass('x')`,
 * `pg_catalog.regclass('x')`: PostgreSQL reads a call to a type's name with one argument as a cast). MySQL has
 * no such types.
 */
export function catalogCast(facts: Pick<AstFacts, 'types' | 'functions'>, dialect: SqlDialect): string | undefined {
  if (dialect !== 'postgresql') return undefined;
  const type = facts.types.find((t) => POSTGRES_CATALOG_TYPES.has(t));
  if (type !== undefined) return type;
  const builtIn = (f: FunctionCall) => f.schema === undefined || f.schema === 'pg_catalog';
  return facts.functions.find((f) => builtIn(f) && POSTGRES_CATALOG_TYPES.has(f.name))?.name;
}
