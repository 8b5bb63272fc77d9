import { compile, RegoCompileError, RegoParseError, type PreparedPolicy } from '../../rego/index.js';

/** The module name a work item's policy text compiles under: positions read `query.rego:3:7`. */
export const POLICY_FILE = 'query.rego';

/** A compiled policy text: the prepared modules and the one package whose decision gates the item. */
export interface CompiledPolicy {
  ok: true;
  prepared: PreparedPolicy;
  /** e.g. `parallel.travel` */
  pkg: string;
}

/** A policy text that does not compile; `message` names `query.rego:line:column` of every diagnostic. */
export interface PolicyCompileFailure {
  ok: false;
  message: string;
  /** first diagnostic's position, 1-based */
  line?: number;
  column?: number;
}

export type PolicyEntry = CompiledPolicy | PolicyCompileFailure;

/**
 * Compiles each distinct policy text once. A parallel request sends the same policy with many queries, and a
 * pool agent sees the same few texts again and again; failures are cached too, so a bad text costs one
 * compilation. Least recently used entries leave first, so the memory is bounded.
 */
export class PolicyCache {
  private readonly entries = new Map<string, PolicyEntry>();
  /** compilations done, hits excluded (tests and stats read it) */
  compilations = 0;

  constructor(
    /** @default 256 */
    readonly maxEntries = 256,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(source: string): PolicyEntry {
    const hit = this.entries.get(source);
    if (hit !== undefined) {
      // NB: a Map iterates in insertion order: re-inserting makes this entry the most recently used.
      this.entries.delete(source);
      this.entries.set(source, hit);
      return hit;
    }
    const entry = compilePolicy(source);
    this.compilations++;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(source, entry);
    return entry;
  }
}

/** Compiles one policy text (Rego v1) into the entry the executor uses. */
export function compilePolicy(source: string): PolicyEntry {
  let prepared: PreparedPolicy;
  try {
    prepared = compile([{ name: POLICY_FILE, source }]);
  } catch (err) {
    if (err instanceof RegoCompileError || err instanceof RegoParseError) {
      const first = err.errors[0];
      const message = err.errors
        .map((d) => `${d.file || POLICY_FILE}:${d.row}:${d.col}: ${d.code}: ${d.message}`)
        .join('; ');
      return { ok: false, message: message || err.message, line: first?.row, column: first?.col };
    }
    // NB: anything else (a pathological nesting that overflows the stack) is still this text's fault: fail
    // closed with the reason rather than failing the whole request.
    return { ok: false, message: `${POLICY_FILE}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const packages = prepared.packages();
  // NB: one module has exactly one package; the guard keeps a future multi-module text from picking at random.
  if (packages.length !== 1)
    return { ok: false, message: `${POLICY_FILE}: expected one package, found ${packages.length}` };
  return { ok: true, prepared, pkg: packages[0]! };
}
