/**
 * Documents that are the same in every evaluation: rules that read no input, no base data and call
 * no builtin whose result varies (time, randomness, print, runtime). Policies build such values on
 * every request — pattern strings with sprintf, word sets, lookup tables — so a prepared policy
 * keeps them once computed and later evaluations read them instead of re-running the rules.
 *
 * NB: a value is only shared between scopes without `with data…` overrides or function mocks (those
 * can change what a rule sees), and only between evaluations of the same strictness (strict mode turns
 * builtin errors into errors where non-strict makes them undefined). An evaluation that throws caches nothing.
 */
import type { BodyIR, ExprIR, LogicIR, NodeIR, RuleIR, TermIR } from './ir.js';
import type { DocCache } from './scope.js';

/** Builtins whose result depends on more than their arguments, beyond those declared nondeterministic. */
const VARYING = new Set([
  'print',
  'internal.print',
  'trace',
  'opa.runtime',
  'time.now_ns',
  'io.jwt.decode_verify',
  'rego.metadata.rule',
  'rego.metadata.chain',
]);
const VARYING_PREFIXES = ['crypto.x509.parse_and_verify', 'http.', 'net.lookup'];

function varyingBuiltin(name: string): boolean {
  return VARYING.has(name) || VARYING_PREFIXES.some((p) => name.startsWith(p));
}

/** Per evaluation: a constant document being computed (frames nest as documents read others). */
export interface ConstFrame {
  readonly start: number;
  /** steps spent in nested constant documents (charged to them) */
  nested: number;
  readonly deps: Set<NodeIR>;
  readonly parent: ConstFrame | undefined;
}

export class ConstDocs {
  /** whether a node's rules are constant (also for functions) */
  private readonly rules = new Map<NodeIR, boolean>();
  private readonly pending = new Set<NodeIR>();

  constructor(private readonly root: NodeIR) {}

  /**
   * Puts a stored document, and the stored documents it read, into an evaluation's cache; returns
   * the steps computing them took. NB: the evaluation is charged those steps, so that a step budget
   * stops the same policies whether or not an earlier evaluation (a warm-up) computed them.
   */
  adopt(node: NodeIR, cache: DocCache, strict: boolean): number {
    if (cache.has(node)) return 0;
    const e = node.constDoc;
    // NB: a dependency recomputed since by an evaluation of the other strictness is left out (computed again if read).
    if (e === undefined || e.strict !== strict) return 0;
    cache.set(node, e.value);
    let steps = e.steps;
    for (const d of e.deps) steps += this.adopt(d, cache, strict);
    return steps;
  }

  /** Whether the node's document is the same in every evaluation (complete rules and partial sets). */
  isConstant(node: NodeIR): boolean {
    const known = node.constant;
    if (known !== undefined) return known;
    const kind = node.kind;
    const shaped = kind === 'complete' || kind === 'multi';
    const v = shaped && node.children.size === 0 && this.rulesConstant(node);
    node.constant = v;
    return v;
  }

  /**
   * Whether every rule of the node (with else chains and default) is constant. A node met again
   * while it is being judged (recursion) counts as not constant, which can only err on the safe side.
   */
  private rulesConstant(node: NodeIR): boolean {
    const known = this.rules.get(node);
    if (known !== undefined) return known;
    if (this.pending.has(node)) return false;
    this.pending.add(node);
    let v: boolean;
    try {
      const rules = node.default ? [...node.rules, node.default] : node.rules;
      v = rules.every((r) => this.rule(r));
    } finally {
      this.pending.delete(node);
    }
    this.rules.set(node, v);
    return v;
  }

  private rule(r: RuleIR): boolean {
    const terms = [...(r.args ?? []), ...r.suffix, ...(r.key ? [r.key] : []), ...(r.value ? [r.value] : [])];
    return terms.every((t) => this.term(t)) && this.body(r.body) && (r.else === undefined || this.rule(r.else));
  }

  private body(b: BodyIR): boolean {
    return b.every((e) => this.expr(e));
  }

  private expr(e: ExprIR): boolean {
    if (e.with !== undefined) return false;
    switch (e.op) {
      case 'term':
        return this.term(e.t);
      case 'unify':
        return this.term(e.a) && this.term(e.b);
      case 'call': {
        const c = e.call;
        if (c.fn !== undefined) {
          if (!this.rulesConstant(c.fn)) return false;
        } else if (c.builtin === undefined || c.builtin.decl.nondeterministic === true || varyingBuiltin(c.name))
          return false;
        return c.args.every((t) => this.term(t)) && (c.out === undefined || this.term(c.out));
      }
      case 'every':
        return (
          this.term(e.domain) && this.term(e.value) && (e.key === undefined || this.term(e.key)) && this.body(e.body)
        );
      case 'logic':
        return this.logic(e.node);
    }
  }

  private logic(n: LogicIR): boolean {
    switch (n.kind) {
      case 'body':
        return this.body(n.body);
      case 'not':
        return this.logic(n.operand);
      default:
        return this.logic(n.left) && this.logic(n.right);
    }
  }

  private term(t: TermIR): boolean {
    switch (t.k) {
      case 'c':
      case 'v':
        return true;
      case 'input':
        return false;
      case 'data':
        return this.dataRef(t.path);
      case 'ref':
        return this.term(t.head) && t.path.every((p) => this.term(p));
      case 'arr':
      case 'set':
        return t.items.every((x) => this.term(x));
      case 'obj':
        return t.items.every(([a, b]) => this.term(a) && this.term(b));
      case 'ac':
      case 'sc':
        return this.term(t.head) && this.body(t.body);
      case 'oc':
        return this.term(t.key) && this.term(t.value) && this.body(t.body);
    }
  }

  /** A data ref is constant when ground keys lead to a constant rule node (what follows navigates its value). */
  private dataRef(path: readonly TermIR[]): boolean {
    let n: NodeIR = this.root;
    for (let i = 0; i < path.length; i++) {
      const p = path[i]!;
      if (p.k !== 'c' || typeof p.v !== 'string') return false;
      const child = n.children.get(p.v);
      if (child === undefined) return false;
      n = child;
      if (n.kind !== undefined) {
        if (!this.isConstant(n)) return false;
        return path.slice(i + 1).every((x) => this.term(x));
      }
    }
    return false;
  }
}
