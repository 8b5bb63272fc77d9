import type { SqlDialect } from '../lexer.js';
import { configuredName } from '../names.js';
import type { FunctionCall } from '../walk.js';
import { MYSQL_DENIED, POSTGRES_DENIED } from './denied.js';
import { MYSQL_ALLOWED } from './mysql.js';
import { POSTGRES_ALLOWED } from './postgres.js';

/**
 * Which functions a confined connector (read-only, or limited by `allowedTables`) may call: an allowlist,
 * because a deny list cannot know every function that runs SQL text or reads the server (ts_stat did).
 * A call passes when the built-in list or `allowedFunctions` names it and neither the built-in deny list nor
 * `deniedFunctions` does: denial wins.
 *
 * `allowedFunctions` entries are read as the dialect reads names (names.ts): `name` or `prefix*` match an
 * unqualified call (in PostgreSQL also `pg_catalog.name`); `schema.name` matches a call qualified so, which
 * is how a user-defined or extension function is allowed. `deniedFunctions` entries match the bare name,
 * lower-cased, with or without a schema.
 */
export type FunctionRefusal = 'DENIED_FUNCTION' | 'FUNCTION_NOT_ALLOWED';

export interface FunctionRules {
  allowedFunctions?: readonly string[];
  deniedFunctions?: readonly string[];
}

/** Exact names and `prefix*` entries, compiled once. */
class NameSet {
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];

  constructor(entries: Iterable<string>) {
    for (const e of entries) {
      if (e.endsWith('*')) this.prefixes.push(e.slice(0, -1));
      else this.exact.add(e);
    }
  }

  has(name: string): boolean {
    return this.exact.has(name) || this.prefixes.some((p) => name.startsWith(p));
  }
}

const BUILT_IN = {
  postgresql: { allowed: new NameSet(POSTGRES_ALLOWED), denied: new NameSet(POSTGRES_DENIED) },
  mysql: { allowed: new NameSet(MYSQL_ALLOWED), denied: new NameSet(MYSQL_DENIED) },
} as const;

export type FunctionJudge = (call: FunctionCall) => FunctionRefusal | undefined;

export function functionJudge(dialect: SqlDialect, rules: FunctionRules): FunctionJudge {
  const builtIn = BUILT_IN[dialect];
  const denied = new NameSet((rules.deniedFunctions ?? []).map((e) => e.toLowerCase()));
  const bare: string[] = [];
  const qualified: string[] = [];
  for (const entry of rules.allowedFunctions ?? []) {
    const parts = configuredName(entry, dialect);
    // MySQL function names ignore case; a database name does not
    if (dialect === 'mysql') parts[parts.length - 1] = parts[parts.length - 1]!.toLowerCase();
    (parts.length === 1 ? bare : qualified).push(parts.join('.'));
  }
  const allowedBare = new NameSet(bare);
  const allowedQualified = new NameSet(qualified);
  return (call) => {
    const lower = call.name.toLowerCase();
    if (builtIn.denied.has(lower) || denied.has(lower)) return 'DENIED_FUNCTION';
    const unqualified = call.schema === undefined || (dialect === 'postgresql' && call.schema === 'pg_catalog');
    if (unqualified && (builtIn.allowed.has(call.name) || allowedBare.has(call.name))) return undefined;
    if (call.schema !== undefined && allowedQualified.has(`${call.schema}.${call.name}`)) return undefined;
    return 'FUNCTION_NOT_ALLOWED';
  };
}

/** The text of a call for messages: `name` or `schema.name`. */
export const callText = (call: FunctionCall): string =>
  call.schema === undefined ? call.name : `${call.schema}.${call.name}`;
