/**
 * The types of terms for the type checker (OPA's TypeEnv.Get): scalars, composites, refs into
 * local vars and rule documents, comprehensions. A term holding a var not bound yet has no type
 * (`undefined`, OPA's nil), which tells the checker to bind rather than compare.
 */
import type { Expr, Rule, Term } from '../syntax/ast.js';
import { T, unionOf, type Type } from '../types.js';
import type { Value } from '../value.js';
import { keysOf, selectType, type MaybeType } from './typeops.js';

/** A function's type as the checker knows it: its arguments and its result. */
export interface FnType {
  args: readonly Type[];
  result: Type;
}

/** Types of rule documents and user functions, when the checker can know them. */
export interface DocTypes {
  /** `data.<parts…>`: the type at the deepest rule node and the number of parts that reached it */
  dataRef(parts: readonly Term[]): { type: Type; used: number } | undefined;
  /** a user function's type, undefined when it is not known (a definition has type errors) */
  fnType(name: string): FnType | undefined;
  /** the type of `input` in a rule, from its METADATA schemas */
  inputType(rule: Rule): Type | undefined;
}

/** Types of the vars of one body; a closure's scope sees its parent's vars. */
export class Scope {
  private readonly vars = new Map<string, Type>();
  constructor(private readonly parent?: Scope) {}
  get(name: string): MaybeType {
    return this.vars.get(name) ?? this.parent?.get(name);
  }
  set(name: string, t: MaybeType): void {
    if (t !== undefined) this.vars.set(name, t);
  }
  child(): Scope {
    return new Scope(this);
  }
}

export function constKey(t: Term): Value | undefined {
  return t.type === 'scalar' ? t.value : undefined;
}

function scalarType(v: Value): Type {
  if (v === null) return T.null;
  if (typeof v === 'boolean') return T.boolean;
  if (typeof v === 'string') return T.string;
  return T.number;
}

type Closure = Extract<Term, { type: 'arraycompr' | 'setcompr' | 'objectcompr' }>;

export abstract class TermTyper {
  /** comprehension → the type it produces (its body is checked once) */
  private readonly closures = new WeakMap<Term, MaybeType>();
  /** the type of `input` in the rule being checked */
  protected input: Type = T.any;

  constructor(protected readonly docs?: DocTypes) {}

  /** Checks a body in a scope, binding the types of its vars. */
  abstract body(body: readonly Expr[], scope: Scope): void;

  /**
   * A ref selects what its type does not have (OPA's `undefined ref`): a key a known object lacks
   * (`invalid`), or anything of a scalar (`unsupported`). `pos` indexes the offending ref term.
   */
  protected abstract undefinedRef(
    ref: Extract<Term, { type: 'ref' }>,
    pos: number,
    have: Type,
    kind: 'invalid' | 'unsupported',
  ): void;

  /** The type of a term in a scope; undefined while it holds an unbound var. */
  typeOf(t: Term, scope: Scope): MaybeType {
    switch (t.type) {
      case 'scalar':
        return scalarType(t.value);
      case 'var':
        if (t.name === 'input') return this.input;
        return t.name === 'data' ? T.any : scope.get(t.name);
      case 'ref':
        return this.refType(t, scope);
      case 'array': {
        const items = t.items.map((x) => this.typeOf(x, scope));
        return items.every((x) => x !== undefined) ? T.tuple(...(items as Type[])) : undefined;
      }
      case 'set': {
        const items = t.items.map((x) => this.typeOf(x, scope));
        if (!items.every((x) => x !== undefined)) return undefined;
        return T.set(items.length > 0 ? unionOf(items as Type[]) : T.any);
      }
      case 'object':
        return this.objectType(t.items, scope);
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
        return this.closureType(t, scope);
      case 'template':
        return T.string;
      default:
        return T.any;
    }
  }

  private objectType(items: [Term, Term][], scope: Scope): MaybeType {
    const props: Record<string, Type> = {};
    const dynKeys: Type[] = [];
    const dynVals: Type[] = [];
    for (const [k, v] of items) {
      const kt = this.typeOf(k, scope);
      const vt = this.typeOf(v, scope);
      if (kt === undefined || vt === undefined) return undefined;
      const key = constKey(k);
      if (typeof key === 'string') props[key] = vt;
      else {
        dynKeys.push(kt);
        dynVals.push(vt);
      }
    }
    return T.record(props, dynKeys.length > 0 ? { key: unionOf(dynKeys), value: unionOf(dynVals) } : undefined);
  }

  private closureType(t: Closure, scope: Scope): MaybeType {
    if (this.closures.has(t)) return this.closures.get(t);
    const inner = scope.child();
    this.body(t.body, inner);
    let out: Type;
    if (t.type === 'objectcompr')
      out = T.object(this.typeOf(t.key, inner) ?? T.any, this.typeOf(t.value, inner) ?? T.any);
    else {
      const head = this.typeOf(t.head, inner) ?? T.any;
      out = t.type === 'arraycompr' ? T.array(head) : T.set(head);
    }
    this.closures.set(t, out);
    return out;
  }

  private refType(t: Extract<Term, { type: 'ref' }>, scope: Scope): MaybeType {
    const head = t.terms[0]!;
    let cur: MaybeType;
    let rest = t.terms.slice(1);
    if (head.type === 'var' && head.name === 'data' && this.docs) {
      const doc = this.docs.dataRef(rest);
      if (!doc) return T.any;
      cur = doc.type;
      rest = rest.slice(doc.used);
    } else if (head.type === 'var' && head.name === 'data') return T.any;
    else cur = this.typeOf(head, scope);
    if (cur === undefined) return undefined;
    const offset = t.terms.length - rest.length;
    for (let i = 0; i < rest.length; i++) {
      const part = rest[i]!;
      // a var in a ref takes the type of the keys it ranges over (OPA's refChecker)
      if (part.type === 'var' && scope.get(part.name) === undefined) scope.set(part.name, keysOf(cur));
      else if (part.type !== 'scalar') this.typeOf(part, scope);
      const key = constKey(part);
      const known = !(cur.kind === 'any' && cur.of.length === 0);
      // NB: after an undefined ref the type is unknown (nil), as in OPA, so that errors it causes are not reported
      if (known && keysOf(cur) === undefined) {
        this.undefinedRef(t, offset + i, cur, 'unsupported');
        return undefined;
      }
      const next = selectType(cur, key);
      if (next === undefined && known && part.type === 'scalar') {
        this.undefinedRef(t, offset + i, cur, 'invalid');
        return undefined;
      }
      cur = next ?? T.any;
    }
    return cur;
  }
}
