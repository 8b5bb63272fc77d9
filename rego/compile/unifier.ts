/**
 * Which vars a unification `a = b` binds, given the vars already safe (OPA's ast.Unify): vars on
 * one side become safe when the other side is safe; dependencies resolve transitively.
 */
import type { Term } from '../syntax/ast.js';
import { termVars } from '../syntax/walk.js';

const SAFETY = { skipClosures: true, skipCallOp: true } as const;

export class Unifier {
  readonly unified = new Set<string>();
  private readonly unknown = new Map<string, Set<string>>();
  constructor(private readonly safe: Set<string>) {}

  private isSafe(v: string): boolean {
    return this.safe.has(v) || this.unified.has(v);
  }

  private markSafe(v: string): void {
    this.unified.add(v);
    const deps = this.unknown.get(v);
    this.unknown.delete(v);
    if (deps) for (const d of deps) this.markSafe(d);
    for (const [w, ds] of [...this.unknown]) {
      if (ds.has(v)) {
        ds.delete(v);
        if (ds.size === 0) this.markSafe(w);
      }
    }
  }

  private markUnknown(a: string, b: string): void {
    let s = this.unknown.get(a);
    if (!s) this.unknown.set(a, (s = new Set()));
    s.add(b);
  }

  private markAllSafe(t: Term): void {
    for (const v of termVars(t, { skipRefHead: true, skipClosures: true })) this.markSafe(v);
  }

  private unifyAll(a: string, b: Term): void {
    if (this.isSafe(a)) {
      this.markAllSafe(b);
      return;
    }
    const unsafe = [...termVars(b, { skipRefHead: true, skipClosures: true })].filter((v) => !this.isSafe(v));
    if (unsafe.length === 0) this.markSafe(a);
    else for (const v of unsafe) this.markUnknown(a, v);
  }

  private headSafe(t: Extract<Term, { type: 'ref' }>): boolean {
    const h = t.terms[0]!;
    return h.type === 'var' ? this.isSafe(h.name) : [...termVars(h, SAFETY)].every((v) => this.isSafe(v));
  }

  private callSafe(t: Extract<Term, { type: 'call' }>): boolean {
    return t.args.every((a) => [...termVars(a, SAFETY)].every((v) => this.isSafe(v)));
  }

  unify(a: Term, b: Term): void {
    switch (a.type) {
      case 'var':
        switch (b.type) {
          case 'var':
            if (this.isSafe(b.name)) this.markSafe(a.name);
            else if (this.isSafe(a.name)) this.markSafe(b.name);
            else {
              this.markUnknown(a.name, b.name);
              this.markUnknown(b.name, a.name);
            }
            return;
          case 'array':
          case 'object':
            this.unifyAll(a.name, b);
            return;
          case 'ref':
            if (this.headSafe(b)) this.markSafe(a.name);
            return;
          case 'call':
            if (this.callSafe(b)) this.markSafe(a.name);
            return;
          default:
            this.markSafe(a.name);
            return;
        }
      case 'ref':
        if (this.headSafe(a)) {
          if (b.type === 'var') this.markSafe(b.name);
          else if (b.type === 'array' || b.type === 'object') this.markAllSafe(b);
        }
        return;
      case 'call':
        if (this.callSafe(a)) {
          if (b.type === 'var') this.markSafe(b.name);
          else if (b.type === 'array' || b.type === 'object') this.markAllSafe(b);
        }
        return;
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
      case 'template':
        if (b.type === 'var') this.markSafe(b.name);
        else if (b.type === 'array' || b.type === 'object') this.markAllSafe(b);
        return;
      case 'array':
        switch (b.type) {
          case 'var':
            this.unifyAll(b.name, a);
            return;
          case 'arraycompr':
          case 'setcompr':
          case 'objectcompr':
          case 'template':
            this.markAllSafe(a);
            return;
          case 'ref':
            if (this.headSafe(b)) this.markAllSafe(a);
            return;
          case 'call':
            if (this.callSafe(b)) this.markAllSafe(a);
            return;
          case 'array':
            if (a.items.length === b.items.length) a.items.forEach((x, i) => this.unify(x, b.items[i]!));
            return;
          default:
            return;
        }
      case 'object':
        switch (b.type) {
          case 'var':
            this.unifyAll(b.name, a);
            return;
          case 'ref':
            if (this.headSafe(b)) this.markAllSafe(a);
            return;
          case 'call':
            if (this.callSafe(b)) this.markAllSafe(a);
            return;
          case 'object':
            if (a.items.length === b.items.length) {
              for (const [k, v] of a.items) {
                const m = b.items.find(([k2]) => sameGroundKey(k, k2));
                if (m) this.unify(v, m[1]);
              }
            }
            return;
          default:
            return;
        }
      default:
        if (b.type === 'var') this.markSafe(b.name);
        return;
    }
  }
}

/** Structural equality of key terms (OPA looks keys up by term equality). */
function sameGroundKey(a: Term, b: Term): boolean {
  if (a.type === 'scalar' && b.type === 'scalar') return a.value === b.value;
  if (a.type === 'var' && b.type === 'var') return a.name === b.name;
  return false;
}
