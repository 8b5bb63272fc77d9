/**
 * Building the evaluation plan: NodeIR skeleton from the rule tree, the compile environment
 * (function nodes, arities, builtins incl. stubs for mocked unsupported ones), lowered rules.
 */
import type { Builtin, BuiltinRegistry, Unsupported } from '../builtins/registry.js';
import { BuiltinError, diagnostic, type Diagnostic, type Location } from '../errors.js';
import type { NodeIR } from '../eval/ir.js';
import type { Module, Rule, Term } from '../syntax/ast.js';
import { headName } from '../syntax/format.js';
import { T } from '../types.js';
import { walkExprs } from './checks.js';
import { LowerError, lowerRule, type LowerEnv } from './lower.js';
import { metadataFor } from './metadata.js';
import type { SafetyEnv } from './safety.js';
import type { PlacedRule, TreeNode } from './tree.js';

/** NodeIR skeleton mirroring the rule tree (rules are attached after lowering). */
export function buildNodes(root: TreeNode): Map<TreeNode, NodeIR> {
  const map = new Map<TreeNode, NodeIR>();
  const visit = (n: TreeNode): NodeIR => {
    const children = new Map<string, NodeIR>();
    for (const [k, c] of n.children) children.set(k, visit(c));
    const all = [...n.rules, ...n.defaults];
    const kinds = new Set(all.map((r) => r.kind));
    let kind: NodeIR['kind'];
    if (kinds.has('function')) kind = 'function';
    else if (kinds.has('complete')) kind = 'complete';
    else if (kinds.has('multi') && all.every((r) => r.kind === 'multi' && r.suffix.length === 0)) kind = 'multi';
    else if (all.length > 0) kind = 'object';
    // NB: every field in the same order on every node (one hidden class): the evaluator reads nodes everywhere.
    const ir: NodeIR = {
      path: n.path,
      children,
      rules: [],
      default: undefined,
      kind,
      arity: kind === 'function' ? (all[0]!.rule.head.args?.length ?? 0) : undefined,
      hasRules: all.length > 0 || [...children.values()].some((c) => c.hasRules),
      deepDynamic: all.some((r) => r.suffix.length > 1 || (r.kind === 'multi' && r.suffix.length > 0)),
      alias: undefined,
      docScope: 0,
      constant: undefined,
      constDoc: undefined,
      doc: undefined,
    };
    map.set(n, ir);
    return ir;
  };
  visit(root);
  return map;
}

/** Names of functions the policy replaces with `with` (used to allow mocked unsupported builtins). */
export function mockedNames(modules: Module[]): Set<string> {
  const out = new Set<string>();
  for (const m of modules) {
    for (const r of m.rules) {
      for (let x: Rule | undefined = r; x; x = x.else) {
        walkExprs(x.body, (e) => {
          for (const w of e.with) {
            const t = w.target;
            const name = t.type === 'var' ? t.name : t.type === 'ref' ? headName(t.terms) : '';
            if (name && !name.startsWith('data') && !name.startsWith('input')) out.add(name);
          }
        });
      }
    }
  }
  return out;
}

/** A builtin that only exists so a mocked call compiles; unmocked calls fail at evaluation. */
function unsupportedStub(u: Unsupported): Builtin {
  return {
    decl: { name: u.name, args: new Array(u.arity).fill(T.any), result: T.any },
    impl: () => {
      throw new BuiltinError(`builtin is not supported by Steward: ${u.reason}`);
    },
  };
}

export function makeEnv(
  registry: BuiltinRegistry,
  nodes: Map<TreeNode, NodeIR>,
  root: TreeNode,
  mocked: Set<string>,
): LowerEnv & SafetyEnv {
  const rootIR = nodes.get(root)!;
  const stubs = new Map<string, Builtin>();
  const builtin = (name: string): Builtin | undefined => {
    const b = registry.get(name);
    if (b) return b;
    const u = registry.getUnsupported(name);
    if (!u || !mocked.has(name)) return undefined;
    let s = stubs.get(name);
    if (!s) stubs.set(name, (s = unsupportedStub(u)));
    return s;
  };
  const fnNode = (name: string): NodeIR | undefined => {
    if (!name.startsWith('data.')) return undefined;
    let n: NodeIR | undefined = rootIR;
    for (const p of name.slice(5).split('.')) {
      n = n.children.get(p);
      if (!n) return undefined;
    }
    return n.kind === 'function' ? n : undefined;
  };
  const arity = (name: string): number => {
    const fn = fnNode(name);
    if (fn) return fn.arity ?? 0;
    if (name === 'print' || name === 'internal.print') return -1;
    const b = builtin(name);
    if (b) return b.decl.variadic ? -1 : b.decl.args.length;
    return -1;
  };
  const isFunctionValue = (t: Term): boolean => {
    if (t.type !== 'ref' && t.type !== 'var') return false;
    const name = t.type === 'var' ? t.name : headName(t.terms);
    return fnNode(name) !== undefined || builtin(name) !== undefined;
  };
  return { registry, builtin, fnNode, arity, isFunctionValue };
}

export function attachRules(
  root: TreeNode,
  nodes: Map<TreeNode, NodeIR>,
  env: LowerEnv,
  errors: Diagnostic[],
  src: (l: Location) => string | undefined,
): void {
  const visit = (n: TreeNode): void => {
    const ir = nodes.get(n)!;
    const lower = (pr: PlacedRule) => {
      try {
        return lowerRule(pr, env, metadataFor);
      } catch (e) {
        if (e instanceof LowerError) {
          errors.push(diagnostic('rego_type_error', e.message, e.loc, src(e.loc)));
          return undefined;
        }
        throw e;
      }
    };
    for (const pr of n.rules) {
      const r = lower(pr);
      if (r) ir.rules.push(r);
    }
    if (n.defaults[0]) {
      const d = lower(n.defaults[0]);
      if (d) ir.default = d;
    }
    for (const c of n.children.values()) visit(c);
  };
  visit(root);
}
