/**
 * Memo tables for function calls and keyed partial-rule lookups, keyed by argument tuples.
 *
 * NB: primitive arguments are Map keys as they are, never serialized: the gateway's functions take
 * the (1 KB+) prompt as an argument, and serializing it on every call cost more than evaluating the
 * call. A JS Map compares primitives the way Rego does (numbers are normalized: an integer is a
 * bigint only beyond 2^53, so 1 and 1n never both occur; 0 and -0 are one key), and V8 caches a
 * string's hash in the string, so the same text is hashed once. Composite arguments use their
 * canonical key string (cached per value by keyOf) in a separate map, so they never collide with
 * strings.
 */
import { keyOf, type Value } from '../value.js';
import type { UNDEFINED } from './scope.js';

export type MemoResult = Value | typeof UNDEFINED;

type Prim = null | boolean | number | bigint | string;

class MemoNode {
  prim: Map<Prim, MemoNode> | undefined;
  comp: Map<string, MemoNode> | undefined;
  result: MemoResult | undefined;

  child(k: Value, create: boolean): MemoNode | undefined {
    if (k === null || typeof k !== 'object') {
      let next = this.prim?.get(k);
      if (next === undefined && create) (this.prim ??= new Map()).set(k, (next = new MemoNode()));
      return next;
    }
    const s = keyOf(k);
    let next = this.comp?.get(s);
    if (next === undefined && create) (this.comp ??= new Map()).set(s, (next = new MemoNode()));
    return next;
  }
}

/** Results by argument tuple: a trie with one level per argument. */
export class ArgMemo {
  private readonly root = new MemoNode();

  get(args: readonly Value[]): MemoResult | undefined {
    let n: MemoNode | undefined = this.root;
    for (let i = 0; i < args.length && n !== undefined; i++) n = n.child(args[i]!, false);
    return n?.result;
  }

  /** The result for one key (a keyed partial-rule lookup). */
  get1(key: Value): MemoResult | undefined {
    return this.root.child(key, false)?.result;
  }

  set(args: readonly Value[], r: MemoResult): void {
    let n = this.root;
    for (let i = 0; i < args.length; i++) n = n.child(args[i]!, true)!;
    n.result = r;
  }

  set1(key: Value, r: MemoResult): void {
    this.root.child(key, true)!.result = r;
  }
}
