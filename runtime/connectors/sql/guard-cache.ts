import { guardSql, type GuardedSql, type SqlGuardOptions } from './guard.js';

/** Statements kept per connector: enough for an application's parameterised statements. */
const MAX_ENTRIES = 512;
/** Longer statements are guarded every time (they are rare, and would make the cache large). */
const MAX_CACHED_CHARS = 8192;

/**
 * `guardSql` with a small LRU per connector: a parameterised statement is parsed once, not on every call (the
 * parse is most of the guard's cost, ~0.4 ms CPU for a one-line SELECT; docs/benchmarks.md, connectors).
 * Only statements the guard accepts are kept, so hostile input cannot fill the cache with refusals; the result
 * is frozen because every call shares it. NB: the key is the exact text, the options are the connector's
 * (one cache per options object): a changed document builds a new connector and so a new cache.
 */
export class GuardCache {
  private readonly entries = new Map<string, GuardedSql>();

  constructor(private readonly options: SqlGuardOptions) {}

  guard(statement: string): GuardedSql {
    const hit = this.entries.get(statement);
    if (hit) {
      this.entries.delete(statement);
      this.entries.set(statement, hit);
      return hit;
    }
    const guarded = guardSql(statement, this.options);
    if (statement.length <= MAX_CACHED_CHARS) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(statement, freeze(guarded));
    }
    return guarded;
  }
}

function freeze(g: GuardedSql): GuardedSql {
  Object.freeze(g.summary.tables);
  Object.freeze(g.summary);
  Object.freeze(g.lex.placeholders);
  return Object.freeze(g);
}
