/**
 * The types of the documents rules produce (OPA's checker types each rule from its head after
 * checking its body, in dependency order). Here a rule is typed on first use: refs to
 * `data.<rule>` and calls of user functions get the union of their definitions' types. A rule
 * that depends on itself, or whose head is not typed, is `any`.
 */
import type { Location } from '../errors.js';
import type { Rule, Term } from '../syntax/ast.js';
import { T, unionOf, type Type } from '../types.js';
import type { LowerEnv } from './lower.js';
import { TypeChecker, type DocTypes, type FnType } from './typecheck.js';
import type { PlacedRule, TreeNode } from './tree.js';

export class RuleTypes implements DocTypes {
  private readonly done = new Map<TreeNode, Type>();
  private readonly fns = new Map<TreeNode, FnType | undefined>();
  private readonly busy = new Set<TreeNode>();

  constructor(
    private readonly root: TreeNode,
    private readonly env: LowerEnv,
    private readonly src: (l: Location) => string | undefined,
    /** the type of `input` per rule, from METADATA schemas */
    private readonly inputs: ReadonlyMap<Rule, Type> = new Map(),
  ) {}

  inputType(rule: Rule): Type | undefined {
    return this.inputs.get(rule);
  }

  /** The type of `data.<parts…>` up to the deepest rule node, and how many parts that used. */
  dataRef(parts: readonly Term[]): { type: Type; used: number } | undefined {
    let n = this.root;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.type !== 'scalar' || typeof p.value !== 'string') return undefined;
      const next = n.children.get(p.value);
      if (!next) return undefined;
      n = next;
      if (n.rules.length > 0 || n.defaults.length > 0) {
        return n.children.size === 0 ? { type: this.nodeType(n), used: i + 1 } : undefined;
      }
    }
    return undefined;
  }

  /** A user function's type: the union of its definitions' argument and result types. */
  fnType(name: string): FnType | undefined {
    let n: TreeNode | undefined = this.root;
    for (const p of name.split('.').slice(1)) n = n?.children.get(p);
    if (!n) return undefined;
    if (this.fns.has(n)) return this.fns.get(n);
    if (this.busy.has(n)) return undefined;
    this.busy.add(n);
    let out: FnType | undefined;
    for (const pr of [...n.rules, ...n.defaults]) {
      for (let r: Rule | undefined = pr.rule; r; r = r.else) {
        const t = new TypeChecker(this.env, this.src, this).funcType(r);
        if (!t || (out && out.args.length !== t.args.length)) return this.settle(n, undefined);
        out = out
          ? { args: out.args.map((a, i) => unionOf([a, t.args[i]!])), result: unionOf([out.result, t.result]) }
          : t;
      }
    }
    return this.settle(n, out);
  }

  private settle(n: TreeNode, t: FnType | undefined): FnType | undefined {
    this.busy.delete(n);
    this.fns.set(n, t);
    return t;
  }

  private nodeType(n: TreeNode): Type {
    const cached = this.done.get(n);
    if (cached) return cached;
    if (this.busy.has(n)) return T.any;
    this.busy.add(n);
    const all = [...n.rules, ...n.defaults];
    const t = all.some((pr) => pr.suffix.length > 0) ? T.any : this.unionOfRules(all);
    this.busy.delete(n);
    this.done.set(n, t);
    return t;
  }

  private unionOfRules(all: readonly PlacedRule[]): Type {
    const values: Type[] = [];
    const multi = all.some((pr) => pr.kind === 'multi');
    for (const pr of all) {
      for (let r: Rule | undefined = pr.rule; r; r = r.else) {
        const tc = new TypeChecker(this.env, this.src, this);
        const head = tc.headType(r, multi);
        if (head === undefined) return T.any;
        values.push(head);
      }
    }
    const v = values.length > 0 ? unionOf(values) : T.any;
    return multi ? T.set(v) : v;
  }
}
