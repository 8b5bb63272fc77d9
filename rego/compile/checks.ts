/**
 * Static checks with OPA's codes: v1 module rules (duplicate imports, shadowing root documents,
 * deprecated builtins), calls (unknown or unsupported functions, arity) and recursion between rules.
 */
import type { BuiltinRegistry } from '../builtins/registry.js';
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import { logicBodies, type Expr, type Module, type Rule, type Term } from '../syntax/ast.js';
import { termText } from '../syntax/parser.js';
import { callName, walkBody, walkTerm } from '../syntax/walk.js';
import type { LowerEnv } from './lower.js';
import { nodeAt, ruleRef, type TreeNode } from './tree.js';

type Src = (l: Location) => string | undefined;

/** Builtins OPA deprecates; v1 modules may not call them. */
export const DEPRECATED_BUILTINS = new Set([
  'any',
  'all',
  're_match',
  'net.cidr_overlap',
  'set_diff',
  'cast_array',
  'cast_set',
  'cast_string',
  'cast_boolean',
  'cast_null',
  'cast_object',
]);

function isV1(m: Module): boolean {
  if (m.regoVersion === 'v1') return true;
  return m.imports.some((i) => {
    const t = i.path.terms;
    return (
      t.length === 2 && t[0]!.type === 'var' && t[0]!.name === 'rego' && t[1]!.type === 'scalar' && t[1]!.value === 'v1'
    );
  });
}

function importName(t: Term[], alias?: string): string {
  if (alias) return alias;
  const last = t[t.length - 1]!;
  return t.length === 1 && last.type === 'var' ? last.name : String((last as { value: unknown }).value);
}

export function checkModuleV1(m: Module, registry: BuiltinRegistry, src: Src): Diagnostic[] {
  if (!isV1(m)) return [];
  const out: Diagnostic[] = [];
  const err = (code: Diagnostic['code'], msg: string, loc: Location): void => {
    out.push(diagnostic(code, msg, loc, src(loc)));
  };
  const seen = new Map<string, string>();
  for (const imp of m.imports) {
    const root = imp.path.terms[0];
    if (root?.type === 'var' && (root.name === 'future' || root.name === 'rego')) continue;
    const name = importName(imp.path.terms, imp.alias);
    const prev = seen.get(name);
    if (prev !== undefined) err('rego_compile_error', `import must not shadow ${prev}`, imp.loc);
    else seen.set(name, `import ${termText(imp.path)}${imp.alias ? ` as ${imp.alias}` : ''}`);
  }
  for (const r of m.rules) {
    const h = r.head.ref[0];
    const name = h?.type === 'var' ? h.name : '';
    if (name === 'data' || name === 'input')
      err('rego_compile_error', `rules must not shadow ${name} (use a different rule name)`, r.loc);
    for (const a of r.head.args ?? []) {
      if (a.type === 'ref' && a.terms.length === 1 && a.terms[0]!.type === 'var') {
        const n = a.terms[0]!.name;
        if (n === 'data' || n === 'input')
          err('rego_compile_error', `args must not shadow ${n} (use a different variable name)`, a.loc);
      }
    }
    for (let x: Rule | undefined = r; x; x = x.else) {
      walkExprs(x.body, (e) => {
        if (!Array.isArray(e.terms)) return;
        const op = callName(e.terms);
        if (op === 'assign') {
          const lhs = e.terms[1];
          const n =
            lhs?.type === 'ref' && lhs.terms.length === 1 && lhs.terms[0]!.type === 'var' ? lhs.terms[0]!.name : '';
          if (n === 'data' || n === 'input')
            err('rego_compile_error', `variables must not shadow ${n} (use a different variable name)`, e.loc);
        }
      });
      const calls: [string, Location][] = [];
      walkBody(x.body, (t) => {
        if (t.type === 'call') calls.push([callName([t.fn]), t.loc]);
      });
      walkExprs(x.body, (e) => {
        if (Array.isArray(e.terms)) calls.push([callName(e.terms), e.loc]);
      });
      for (const [n, loc] of calls) {
        if (DEPRECATED_BUILTINS.has(n) || registry.get(n)?.decl.deprecated) {
          err('rego_type_error', `deprecated built-in function calls in expression: ${n}`, loc);
        }
      }
    }
  }
  return out;
}

/** Visits every expression, including those in comprehension and every bodies. */
export function walkExprs(body: Expr[], fn: (e: Expr) => void): void {
  for (const e of body) {
    fn(e);
    const t = e.terms;
    if (!Array.isArray(t) && t.type === 'every') walkExprs(t.body, fn);
    if (!Array.isArray(t) && t.type === 'logic') {
      for (const b of logicBodies(t.node)) walkExprs(b, fn);
      continue;
    }
    const visit = (x: Term): boolean => {
      if (x.type === 'arraycompr' || x.type === 'setcompr' || x.type === 'objectcompr') {
        walkExprs(x.body, fn);
        return false;
      }
      if (x.type === 'template') {
        for (const p of x.parts) if (typeof p !== 'string') walkExprs([p], fn);
        return true;
      }
      return false;
    };
    const terms = Array.isArray(t) ? t : t.type === 'some' ? t.symbols : t.type === 'every' ? [t.domain] : [t as Term];
    for (const x of terms) walkTerm(x, visit);
    for (const w of e.with) walkTerm(w.value, visit);
  }
}

/** The plain terms of an expression (no logic operands, no every bodies). */
function exprTerms(e: Expr): Term[] {
  const t = e.terms;
  if (Array.isArray(t)) return t;
  if (t.type === 'some') return t.symbols;
  if (t.type === 'every') return [t.domain];
  if (t.type === 'logic') return [];
  return [t as Term];
}

/** Unknown, unsupported and wrongly-called functions. */
export function checkCalls(rule: Rule, env: LowerEnv, registry: BuiltinRegistry, src: Src): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (name: string, nargs: number, loc: Location): void => {
    if (name === '' || name === 'eq' || name === 'assign' || name === 'print') return;
    let arity: number;
    if (name.startsWith('data.')) {
      if (!env.fnNode(name)) {
        out.push(diagnostic('rego_type_error', `undefined function ${name}`, loc, src(loc)));
        return;
      }
      arity = env.arity(name);
    } else {
      const b = env.builtin(name);
      if (!b) {
        const u = registry.getUnsupported(name);
        const msg = u ? `builtin ${name} is not supported by Steward: ${u.reason}` : `undefined function ${name}`;
        out.push(diagnostic('rego_type_error', msg, loc, src(loc)));
        return;
      }
      if (b.decl.variadic) return;
      arity = b.decl.args.length;
    }
    if (nargs > arity + 1) out.push(diagnostic('rego_type_error', `${name}: too many arguments`, loc, src(loc)));
    else if (nargs < arity) out.push(diagnostic('rego_type_error', `${name}: too few arguments`, loc, src(loc)));
  };
  const visitTerm = (t: Term): boolean => {
    if (t.type === 'call') {
      const name = callName([t.fn]);
      // a nested call's value is used, so it may not carry an output argument
      const arity = name.startsWith('data.') ? env.arity(name) : (env.builtin(name)?.decl.args.length ?? -1);
      if (arity >= 0 && t.args.length > arity && !env.builtin(name)?.decl.variadic) {
        out.push(diagnostic('rego_type_error', `${name}: too many arguments`, t.loc, src(t.loc)));
      } else check(name, t.args.length, t.loc);
    }
    return false;
  };
  const heads: Term[] = [];
  for (let r: Rule | undefined = rule; r; r = r.else) {
    if (r.head.value) heads.push(r.head.value);
    if (r.head.key) heads.push(r.head.key);
  }
  for (const h of heads) walkTerm(h, visitTerm);
  // `with f as g`: a replacement function must have the target's arity (OPA's "arity mismatch").
  const fnArity = (t: Term): number => {
    const name = t.type === 'var' ? t.name : t.type === 'ref' ? callName([t]) : '';
    if (!name) return -1;
    if (name.startsWith('data.')) return env.fnNode(name) ? env.arity(name) : -1;
    const b = env.builtin(name);
    return b && !b.decl.variadic ? b.decl.args.length : -1;
  };
  walkExprs(rule.body, (e) => {
    for (const w of e.with) {
      const ta = fnArity(w.target);
      const va = fnArity(w.value);
      if (ta >= 0 && va >= 0 && ta !== va) {
        const name = w.target.type === 'var' ? w.target.name : callName([w.target]);
        out.push(diagnostic('rego_type_error', `${name}: arity mismatch`, w.loc, src(w.loc)));
      }
    }
  });
  walkExprs(rule.body, (e) => {
    const t = e.terms;
    if (Array.isArray(t)) {
      check(callName(t), t.length - 1, e.loc);
      for (const x of t.slice(1)) walkTerm(x, visitTerm);
    } else for (const x of exprTerms(e)) walkTerm(x, visitTerm);
    for (const w of e.with) walkTerm(w.value, visitTerm);
  });
  return out;
}

/** Rule-to-rule dependencies; a cycle is OPA's rego_recursion_error. */
export function checkRecursion(modules: Module[], root: TreeNode, src: Src): Diagnostic[] {
  const deps = new Map<TreeNode, Set<TreeNode>>();
  const firstRule = new Map<TreeNode, Rule>();
  const ruleNode = (m: Module, r: Rule): TreeNode | undefined => {
    const ref = ruleRef(m, r);
    const path: string[] = [];
    for (const t of ref.slice(1)) {
      if (t.type === 'scalar' && typeof t.value === 'string') path.push(t.value);
      else break;
    }
    return nodeAt(root, path);
  };
  const targets = (t: Term, out: Set<TreeNode>): void => {
    if (t.type !== 'ref' || t.terms[0]?.type !== 'var' || t.terms[0].name !== 'data') return;
    let n: TreeNode | undefined = root;
    let i = 1;
    for (; i < t.terms.length; i++) {
      const p = t.terms[i]!;
      if (n.rules.length > 0 || n.defaults.length > 0) break;
      if (p.type !== 'scalar' || typeof p.value !== 'string') {
        collectRuleNodes(n, out);
        return;
      }
      const c: TreeNode | undefined = n.children.get(p.value);
      if (!c) return;
      n = c;
    }
    if (n.rules.length > 0 || n.defaults.length > 0) out.add(n);
    else collectRuleNodes(n, out);
  };
  for (const m of modules) {
    for (const r of m.rules) {
      const node = ruleNode(m, r);
      if (!node) continue;
      if (!firstRule.has(node)) firstRule.set(node, r);
      let s = deps.get(node);
      if (!s) deps.set(node, (s = new Set()));
      for (let x: Rule | undefined = r; x; x = x.else) {
        const visit = (t: Term): boolean => {
          if (t.type === 'ref') targets(t, s!);
          if (t.type === 'call') targets(t.fn, s!);
          return false;
        };
        walkExprs(x.body, (e) => {
          for (const y of exprTerms(e)) walkTerm(y, visit);
          for (const w of e.with) walkTerm(w.value, visit);
        });
        for (const h of [x.head.value, x.head.key, ...(x.head.args ?? [])]) if (h) walkTerm(h, visit);
      }
    }
  }
  const out: Diagnostic[] = [];
  const state = new Map<TreeNode, 1 | 2>();
  const stack: TreeNode[] = [];
  const reported = new Set<TreeNode>();
  const visit = (n: TreeNode): void => {
    state.set(n, 1);
    stack.push(n);
    for (const d of deps.get(n) ?? []) {
      const st = state.get(d);
      if (st === 1) {
        const cycle = stack.slice(stack.indexOf(d));
        if (!reported.has(d)) {
          reported.add(d);
          const names = [...cycle, d].map((x) => `data.${x.path.join('.')}`);
          const r = firstRule.get(d)!;
          out.push(
            diagnostic(
              'rego_recursion_error',
              `rule ${names[0]} is recursive: ${names.join(' -> ')}`,
              r.loc,
              src(r.loc),
            ),
          );
        }
      } else if (st === undefined) visit(d);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of deps.keys()) if (!state.has(n)) visit(n);
  return out;
}

function collectRuleNodes(n: TreeNode, out: Set<TreeNode>): void {
  if (n.rules.length > 0 || n.defaults.length > 0) out.add(n);
  for (const c of n.children.values()) collectRuleNodes(c, out);
}
