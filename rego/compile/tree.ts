/**
 * The rule tree: every rule is placed at the node named by the ground (string) prefix of its full
 * ref `data.<package>.<head ref>`; the rest of the ref is dynamic and produced at evaluation time.
 * Conflicting definitions are compile errors, with OPA's codes and texts.
 */
import { diagnostic, type Diagnostic } from '../errors.js';
import type { Module, Rule, Term } from '../syntax/ast.js';
import { headName } from '../syntax/parser.js';

export type RuleKind = 'complete' | 'multi' | 'object' | 'function';

/** A rule with its full path split into the node path (strings) and dynamic suffix terms. */
export interface PlacedRule {
  rule: Rule;
  kind: RuleKind;
  /** data path of the node (without the leading `data`) */
  nodePath: string[];
  /** ref terms after the node path (object/multi rules with general refs) */
  suffix: Term[];
  module: Module;
}

export interface TreeNode {
  path: string[];
  children: Map<string, TreeNode>;
  rules: PlacedRule[];
  defaults: PlacedRule[];
}

export function newNode(path: string[]): TreeNode {
  return { path, children: new Map(), rules: [], defaults: [] };
}

export function childOf(n: TreeNode, key: string): TreeNode {
  let c = n.children.get(key);
  if (!c) {
    c = newNode([...n.path, key]);
    n.children.set(key, c);
  }
  return c;
}

/** Full ref of a rule: data, package path, then the head ref (first var as a string). */
export function ruleRef(mod: Module, rule: Rule): Term[] {
  const loc = rule.head.loc;
  const out: Term[] = [{ type: 'var', name: 'data', loc }];
  for (const p of mod.package.path) out.push({ type: 'scalar', value: p, loc });
  rule.head.ref.forEach((t, i) => {
    if (i === 0 && t.type === 'var') out.push({ type: 'scalar', value: t.name, loc: t.loc });
    else out.push(t);
  });
  return out;
}

export function placeRule(mod: Module, rule: Rule): PlacedRule {
  const ref = ruleRef(mod, rule);
  const h = rule.head;
  let kind: RuleKind;
  if (h.args !== undefined) kind = 'function';
  else if (h.value === undefined) kind = 'multi';
  else kind = 'complete';
  const nodePath: string[] = [];
  let i = 1;
  for (; i < ref.length; i++) {
    const t = ref[i]!;
    if (t.type === 'scalar' && typeof t.value === 'string') nodePath.push(t.value);
    else break;
  }
  const suffix = ref.slice(i);
  if (kind === 'complete' && suffix.length > 0) kind = 'object';
  return { rule, kind, nodePath, suffix, module: mod };
}

export function buildTree(
  modules: Module[],
  source: (file: string) => string,
): { root: TreeNode; errors: Diagnostic[] } {
  const root = newNode([]);
  const errors: Diagnostic[] = [];
  for (const mod of modules) {
    // packages exist as nodes even without rules (so `data.pkg` is {} rather than undefined)
    let n = root;
    for (const p of mod.package.path) n = childOf(n, p);
    for (const rule of mod.rules) {
      const pr = placeRule(mod, rule);
      let node = root;
      for (const p of pr.nodePath) node = childOf(node, p);
      if (rule.default) node.defaults.push(pr);
      else node.rules.push(pr);
    }
  }
  checkNode(root, errors, source);
  return { root, errors };
}

function fullName(pr: PlacedRule): string {
  return `data.${[...pr.nodePath].join('.')}${pr.suffix.length ? headName([{ type: 'var', name: '', loc: pr.rule.loc }, ...pr.suffix]) : ''}`;
}

function checkNode(n: TreeNode, errors: Diagnostic[], source: (file: string) => string): void {
  const all = [...n.rules, ...n.defaults];
  if (all.length > 0) {
    const name = `data.${n.path.join('.')}`;
    const err = (msg: string, pr: PlacedRule): void => {
      errors.push(diagnostic('rego_type_error', msg, pr.rule.loc, source(pr.rule.loc.file)));
    };
    const kinds = new Set(all.map((r) => (r.kind === 'object' ? 'object' : r.kind)));
    const hasFn = kinds.has('function');
    if (hasFn && kinds.size > 1) err(`conflicting rules ${name} found`, all[0]!);
    else if (kinds.has('complete') && kinds.size > 1 && !(kinds.size === 2 && kinds.has('object'))) {
      err(`conflicting rules ${name} found`, all[0]!);
    } else if (
      kinds.has('multi') &&
      kinds.has('object') &&
      all.some((r) => r.kind === 'multi' && r.suffix.length === 0)
    ) {
      err(`conflicting rules ${name} found`, all[0]!);
    }
    if (hasFn) {
      const arities = new Set(all.map((r) => r.rule.head.args?.length ?? 0));
      if (arities.size > 1) err(`conflicting rules ${name} found`, all[0]!);
    }
    if (n.defaults.length > 1) err(`multiple default rules ${name} found`, n.defaults[1]!);
    for (const d of n.defaults) {
      if (d.kind === 'multi') err(`multi-value rules cannot have default values`, d);
    }
    const leafy = all.some(
      (r) => r.kind === 'complete' || r.kind === 'function' || (r.kind === 'multi' && r.suffix.length === 0),
    );
    if (leafy && n.children.size > 0) {
      const childRules: string[] = [];
      collectRuleNames(n, childRules, true);
      if (childRules.length > 0) {
        err(`rule ${name} conflicts with [${childRules.sort().join(' ')}]`, all[0]!);
      }
    }
  }
  for (const c of n.children.values()) checkNode(c, errors, source);
}

function collectRuleNames(n: TreeNode, out: string[], skipSelf: boolean): void {
  if (!skipSelf && (n.rules.length > 0 || n.defaults.length > 0)) out.push(fullName(n.rules[0] ?? n.defaults[0]!));
  for (const c of n.children.values()) collectRuleNames(c, out, false);
}

/** The node at a data path (without `data`), if it exists. */
export function nodeAt(root: TreeNode, path: readonly string[]): TreeNode | undefined {
  let n: TreeNode | undefined = root;
  for (const p of path) {
    n = n.children.get(p);
    if (!n) return undefined;
  }
  return n;
}
