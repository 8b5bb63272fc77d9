/**
 * A small string-keyed cache with approximate least-recently-used eviction, shared by the libraries
 * and builtins that cache what they compile (regular expressions, globs, GraphQL schemas).
 */
/**
 * A bounded cache for compiled patterns and other derived values, keyed by their source text, with
 * least-recently-used eviction approximated by two generations: a hit in the young one touches nothing (the
 * pre-check looks up dozens of patterns per request, and re-inserting on every hit showed in its profile); a
 * hit in the old one moves the entry to the young one; when the young one is full, the old one is dropped.
 * Holds at most `max` entries, and keeps at least the `max / 2` most recently used.
 */
export class LRU<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private readonly half: number;
  constructor(max: number) {
    this.half = Math.max(1, Math.ceil(max / 2));
  }
  get(k: string): V | undefined {
    const v = this.young.get(k);
    if (v !== undefined) return v;
    const o = this.old.get(k);
    if (o !== undefined) {
      this.old.delete(k);
      this.put(k, o);
    }
    return o;
  }
  set(k: string, v: V): void {
    this.old.delete(k);
    if (this.young.has(k)) this.young.set(k, v);
    else this.put(k, v);
  }
  private put(k: string, v: V): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(k, v);
  }
}
