/**
 * The compile pipeline, in OPA's stage order: parse → v1 checks → resolve refs → rule tree →
 * local vars → function checks → term rewriting → safety → recursion → types → lowering to a plan.
 * Every stage reports positioned diagnostics; the first stage with errors stops compilation.
 */
import type { BuiltinRegistry } from '../builtins/registry.js';
import { RegoCompileError, RegoParseError, type Diagnostic, type Location } from '../errors.js';
import type { NodeIR } from '../eval/ir.js';
import type { Module, Rule } from '../syntax/ast.js';
import { parseModule } from '../syntax/module.js';
import { termVars, walkBody } from '../syntax/walk.js';
import { checkCalls, checkModuleV1, checkRecursion } from './checks.js';
import { LocalRewriter, VarGen } from './locals.js';
import type { LowerEnv } from './lower.js';
import { attachRules, buildNodes, makeEnv, mockedNames } from './plan.js';
import { checkPrintCalls } from './print.js';
import { moduleGlobals, resolveRule } from './resolve.js';
import { TermRewriter } from './rewrite.js';
import { RuleTypes } from './ruletypes.js';
import { inputTypes } from './schematypes.js';
import { checkTypes } from './typecheck.js';
import type { SafetyEnv } from './safety.js';
import { buildTree, placeRule } from './tree.js';
import { checkRuleSafety, ruleGlobals, ruleLabel, rulesByRow } from './unsafe.js';

export { ruleGlobals };

export interface ModuleSource {
  name: string;
  source: string;
  /** @default 'v1' */
  regoVersion?: 'v0' | 'v1';
}

export interface Plan {
  readonly root: NodeIR;
  readonly registry: BuiltinRegistry;
  readonly modules: readonly Module[];
  /** shared with query compilation */
  readonly gen: VarGen;
  readonly env: LowerEnv & SafetyEnv;
  readonly sources: ReadonlyMap<string, string>;
}

function fail(errors: Diagnostic[]): never {
  throw new RegoCompileError(errors);
}

export interface CompileModulesOptions {
  /** accept OPA's experimental keywords (`import future.keywords.and|or|not`) @default true */
  experimentalKeywords?: boolean;
}

export function compileModules(
  inputs: readonly ModuleSource[],
  registry: BuiltinRegistry,
  opts: CompileModulesOptions = {},
): Plan {
  const sources = new Map<string, string>();
  const modules: Module[] = [];
  const parseErrors: Diagnostic[] = [];
  for (const m of inputs) {
    sources.set(m.name, m.source);
    try {
      modules.push(
        parseModule(m.name, m.source, {
          regoVersion: m.regoVersion ?? 'v1',
          experimentalKeywords: opts.experimentalKeywords !== false,
        }),
      );
    } catch (e) {
      if (e instanceof RegoParseError) parseErrors.push(...e.errors);
      else throw e;
    }
  }
  if (parseErrors.length > 0) fail(parseErrors);
  const src = (loc: Location | string): string | undefined => sources.get(typeof loc === 'string' ? loc : loc.file);

  const v1Errors: Diagnostic[] = [];
  for (const m of modules) v1Errors.push(...checkModuleV1(m, registry, src));
  if (v1Errors.length > 0) fail(v1Errors);

  // Resolve names: a package's rule names are visible in every module of that package.
  const pkgRules = new Map<string, Set<string>>();
  for (const m of modules) {
    const key = m.package.path.join('.');
    let s = pkgRules.get(key);
    if (!s) pkgRules.set(key, (s = new Set()));
    for (const r of m.rules) {
      const h = r.head.ref[0];
      if (h?.type === 'var') s.add(h.name);
    }
  }
  for (const m of modules) {
    const g = moduleGlobals(m, pkgRules.get(m.package.path.join('.')) ?? []);
    for (const r of m.rules) resolveRule(r, g);
  }

  const { root, errors: treeErrors } = buildTree(modules, (f) => sources.get(f) ?? '');
  if (treeErrors.length > 0) fail(treeErrors);

  const exclude = new Set<string>();
  for (const m of modules) for (const r of m.rules) collectVarNames(r, exclude);
  const gen = new VarGen(exclude);
  const locals = new LocalRewriter(gen, src);
  for (const m of modules) for (const r of m.rules) locals.rewriteRule(r);
  if (locals.errors.length > 0) fail(locals.errors);

  const nodes = buildNodes(root);
  const env = makeEnv(registry, nodes, root, mockedNames(modules));

  const callErrors: Diagnostic[] = [];
  for (const m of modules)
    for (const r of m.rules)
      for (let x: Rule | undefined = r; x; x = x.else) callErrors.push(...checkCalls(x, env, registry, src));
  if (callErrors.length > 0) fail(callErrors);

  const printErrors: Diagnostic[] = [];
  for (const m of modules) {
    for (const r of m.rules) {
      for (let x: Rule | undefined = r; x; x = x.else)
        printErrors.push(...checkPrintCalls(x.body, ruleGlobals(x), env, src, locals.names));
    }
  }
  if (printErrors.length > 0) fail(printErrors);

  const terms = new TermRewriter(gen, env.isFunctionValue);
  for (const m of modules) for (const r of m.rules) terms.rewriteRule(r);

  const safetyErrors: Diagnostic[] = [];
  for (const m of modules) {
    const sameLine = rulesByRow(m);
    for (const r of m.rules) {
      for (let x: Rule | undefined = r; x; x = x.else) {
        const label = ruleLabel(x, r, sameLine);
        safetyErrors.push(...checkRuleSafety(x, env, src, label, locals.names, exclude));
      }
    }
  }
  if (safetyErrors.length > 0) fail(safetyErrors);

  const recursion = checkRecursion(modules, root, src);
  if (recursion.length > 0) fail(recursion);

  const typeErrors = checkTypes(
    allRules(modules),
    env,
    src,
    new RuleTypes(root, env, src, inputTypes(modules)),
    locals.names,
  );
  if (typeErrors.length > 0) fail(typeErrors);

  const lowerErrors: Diagnostic[] = [];
  attachRules(root, nodes, env, lowerErrors, src);
  if (lowerErrors.length > 0) fail(lowerErrors);

  return { root: nodes.get(root)!, registry, modules, gen, env, sources };
}

function* allRules(modules: readonly Module[]): Iterable<Rule> {
  for (const m of modules) yield* m.rules;
}

/** Every var name a rule mentions, so that generated names never collide with the user's. */
function collectVarNames(r: Rule, out: Set<string>): void {
  for (let x: Rule | undefined = r; x; x = x.else) {
    walkBody(x.body, (t) => {
      if (t.type === 'var') out.add(t.name);
    });
    const h = x.head;
    for (const t of [...h.ref, ...(h.args ?? []), ...(h.key ? [h.key] : []), ...(h.value ? [h.value] : [])])
      termVars(t, {}, out);
  }
}

export { placeRule };
