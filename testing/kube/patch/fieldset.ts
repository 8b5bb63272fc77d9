/**
 * Field sets as structured-merge-diff keeps them: a trie of path elements where a node may itself be a
 * member and may have children, with the set algebra apply needs and the FieldsV1 encoding.
 */
import { FieldSetError, comparePE, parsePE, type Path, type PathElement } from './path-element.js';
import { isObject, setOwn, type JsonObject } from './values.js';

export {
  FieldSetError,
  comparePE,
  fieldPE,
  indexPE,
  keyPE,
  parsePE,
  pathString,
  valuePE,
  type Path,
  type PathElement,
} from './path-element.js';

export class FieldSet {
  private readonly members = new Set<PathElement>();
  private readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    if (path.length === 1) {
      this.members.add(path[0]!);
      return;
    }
    let next = this.children.get(path[0]!);
    if (!next) {
      next = new FieldSet();
      this.children.set(path[0]!, next);
    }
    next.insert(path.slice(1));
  }

  /** Whether `path` is a member. */
  has(path: Path): boolean {
    const parent = this.at(path.slice(0, -1));
    return parent !== undefined && path.length > 0 && parent.members.has(path[path.length - 1]!);
  }

  /** Whether `path` is a member or has members below it: someone owns that node. */
  covers(path: Path): boolean {
    if (this.has(path)) return true;
    const node = this.at(path);
    return node !== undefined && !node.isEmpty();
  }

  /** The subtree below `path`, if any. */
  at(path: Path): FieldSet | undefined {
    if (path.length === 0) return this;
    return this.children.get(path[0]!)?.at(path.slice(1));
  }

  isEmpty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  union(o: FieldSet): FieldSet {
    const out = this.clone();
    for (const m of o.members) out.members.add(m);
    for (const [pe, c] of o.children) {
      const mine = out.children.get(pe);
      out.children.set(pe, mine ? mine.union(c) : c.clone());
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const theirs = o.children.get(pe);
      if (!theirs) continue;
      const x = c.intersection(theirs);
      if (!x.isEmpty()) out.children.set(pe, x);
    }
    return out;
  }

  /** Members of this set that `o` does not have (children compared level by level). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const theirs = o.children.get(pe);
      const x = theirs ? c.difference(theirs) : c.clone();
      if (!x.isEmpty()) out.children.set(pe, x);
    }
    return out;
  }

  /** Like difference, but a member of `o` also removes everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (o.members.has(pe)) continue;
      const theirs = o.children.get(pe);
      const x = theirs ? c.recursiveDifference(theirs) : c.clone();
      if (!x.isEmpty()) out.children.set(pe, x);
    }
    return out;
  }

  /** Only the part of the set at or below the top-level element `pe`. */
  only(pe: PathElement): FieldSet {
    const out = new FieldSet();
    if (this.members.has(pe)) out.members.add(pe);
    const c = this.children.get(pe);
    if (c && !c.isEmpty()) out.children.set(pe, c.clone());
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.clone());
    return out;
  }

  /** Every member path in structured-merge-diff's iteration order: a level's members, then its children. */
  paths(prefix: Path = []): PathElement[][] {
    const out: PathElement[][] = [];
    for (const m of [...this.members].sort(comparePE)) out.push([...prefix, m]);
    for (const pe of [...this.children.keys()].sort(comparePE))
      out.push(...this.children.get(pe)!.paths([...prefix, pe]));
    return out;
  }

  equals(o: FieldSet): boolean {
    return this.difference(o).isEmpty() && o.difference(this).isEmpty();
  }

  /** The FieldsV1 object stored in managedFields. */
  toFieldsV1(): JsonObject {
    const out: JsonObject = {};
    const keys = new Set<PathElement>([...this.members]);
    for (const [pe, c] of this.children) if (!c.isEmpty()) keys.add(pe);
    for (const pe of [...keys].sort(comparePE)) {
      const c = this.children.get(pe);
      if (c && !c.isEmpty()) {
        const sub = c.toFieldsV1();
        if (this.members.has(pe)) sub['.'] = {};
        setOwn(out, pe, sub);
      } else {
        setOwn(out, pe, {});
      }
    }
    return out;
  }

  /** Parses FieldsV1; throws FieldSetError on a malformed document. */
  static fromFieldsV1(v: unknown): FieldSet {
    if (!isObject(v)) throw new FieldSetError('fieldsV1 must be a JSON object');
    return FieldSet.read(v).set;
  }

  private static read(obj: JsonObject): { set: FieldSet; self: boolean } {
    const set = new FieldSet();
    let self = false;
    for (const [raw, sub] of Object.entries(obj)) {
      if (raw === '.') {
        self = true;
        continue;
      }
      const pe = parsePE(raw);
      if (!isObject(sub)) throw new FieldSetError(`value of ${raw} must be a JSON object`);
      if (pe === undefined) continue;
      const inner = FieldSet.read(sub);
      if (inner.self) set.members.add(pe);
      if (!inner.set.isEmpty()) set.children.set(pe, inner.set);
    }
    // NB: an entry with nothing below it (`{}`) is a leaf member.
    return { set, self: self || set.isEmpty() };
  }
}
