/**
 * Assembling virtual documents: objects built from base data, child documents and rule outputs.
 * Values are inserted along key paths with OPA's conflict rule (same key, different value →
 * `object keys must be unique`); shared values are copied on write, never mutated.
 */
import { RegoEvalError, type Location } from '../errors.js';
import { RObject, RSet, equal, type Value } from '../value.js';

class MObj {
  readonly entries = new RObject();
}

class MSet {
  constructor(readonly set: RSet) {}
}

type Slot = Value | MObj | MSet;

function conflict(loc: Location): RegoEvalError {
  return new RegoEvalError('eval_conflict_error', 'object keys must be unique', loc);
}

export class DocBuilder {
  private root = new MObj();

  /** Starts from an existing object (base data); its entries are copied lazily on write. */
  constructor(base?: Value) {
    if (base instanceof RObject) base.forEachUnordered((k, v) => this.root.entries.set(k, v));
  }

  /** Drops a top-level key (the root document hides `system`). */
  remove(key: Value): void {
    const rest = this.root.entries.entries().filter(([k]) => k !== key);
    if (rest.length === this.root.entries.size) return;
    const fresh = new MObj();
    for (const [k, v] of rest) fresh.entries.set(k, v);
    this.root = fresh;
  }

  setTop(key: Value, value: Value): void {
    this.root.entries.set(key, value);
  }

  private descend(parent: MObj, key: Value, loc: Location): MObj {
    const cur = parent.entries.get(key) as Slot | undefined;
    if (cur === undefined) {
      const m = new MObj();
      parent.entries.set(key, m as unknown as Value);
      return m;
    }
    if (cur instanceof MObj) return cur;
    if (cur instanceof RObject) {
      const m = new MObj();
      cur.forEachUnordered((k, v) => m.entries.set(k, v));
      parent.entries.set(key, m as unknown as Value);
      return m;
    }
    throw conflict(loc);
  }

  /** Single-value leaf at `keys` (non-empty). */
  insert(keys: readonly Value[], value: Value, loc: Location): void {
    let cur = this.root;
    for (let i = 0; i < keys.length - 1; i++) cur = this.descend(cur, keys[i]!, loc);
    const last = keys[keys.length - 1]!;
    const existing = cur.entries.get(last) as Slot | undefined;
    if (existing === undefined) {
      cur.entries.set(last, value);
      return;
    }
    if (existing instanceof MObj || existing instanceof MSet) {
      const frozen = freeze(existing);
      if (equal(frozen, value)) return;
      throw conflict(loc);
    }
    if (!equal(existing, value)) throw conflict(loc);
  }

  /** Multi-value member added to the set at `keys` (possibly empty: the set is the whole doc). */
  addMember(keys: readonly Value[], member: Value, loc: Location): void {
    let cur = this.root;
    for (let i = 0; i < keys.length - 1; i++) cur = this.descend(cur, keys[i]!, loc);
    const last = keys[keys.length - 1]!;
    const existing = cur.entries.get(last) as Slot | undefined;
    if (existing === undefined) {
      cur.entries.set(last, new MSet(new RSet().add(member)) as unknown as Value);
      return;
    }
    if (existing instanceof MSet) {
      existing.set.add(member);
      return;
    }
    if (existing instanceof RSet) {
      const s = new RSet();
      existing.forEachUnordered((v) => s.add(v));
      s.add(member);
      cur.entries.set(last, new MSet(s) as unknown as Value);
      return;
    }
    throw conflict(loc);
  }

  /** Ensures an (empty) set exists at keys, for multi-value rules that produced nothing there. */
  finish(): RObject {
    return freeze(this.root) as RObject;
  }
}

function freeze(s: Slot): Value {
  if (s instanceof MSet) return s.set;
  if (!(s instanceof MObj)) return s;
  const o = new RObject();
  s.entries.forEachUnordered((k, v) => o.set(k, freeze(v as Slot)));
  return o;
}

/** Copy of `root` with `value` at `path` (objects created along the way); `root` is not modified. */
export function upsert(root: Value | undefined, path: readonly Value[], value: Value): Value {
  if (path.length === 0) return value;
  const [k, ...rest] = path;
  const o = new RObject();
  if (root instanceof RObject) root.forEachUnordered((kk, vv) => o.set(kk, vv));
  const child = root instanceof RObject ? root.get(k!) : undefined;
  o.set(k!, upsert(child, rest, value));
  return o;
}
