/**
 * Finds the tests of compiled modules as `opa test` does: every rule whose name starts with `test_` (any package,
 * any file) is a test, every `todo_test_*` rule a skipped one. Functions are not tests. A second definition of a
 * test (`test_x if …` twice) is a test of its own, named `test_x#01` as OPA names it: it is run alone by renaming
 * its head in the source (`renames`) and compiling again.
 */
import type { Module, Rule } from '../syntax/ast.js';
import type { TestLocation } from './result.js';

export const TEST_PREFIX = 'test_';
export const TODO_PREFIX = 'todo_test_';

export interface TestCase {
  /** `data.authz_test` */
  package: string;
  /** `test_x`, or `test_x#01` for the second definition of `test_x`. */
  name: string;
  fullName: string;
  /**
   * The ref to evaluate, as `PreparedPolicy.evalRef` takes it: `data.authz_test.test_x` (after renames); undefined
   * when a part of the package path holds a `.` (`package a["b.c"]`), which a dotted ref cannot name.
   */
  ref: string | undefined;
  location: TestLocation;
  skip: boolean;
}

/** Replace `length` characters at `offset` of the module `file` with `text` (a later definition's new name). */
export interface Rename {
  file: string;
  offset: number;
  length: number;
  text: string;
}

export interface Discovery {
  tests: TestCase[];
  /** Empty unless a test is defined more than once. */
  renames: Rename[];
}

/** The tests of the modules, in the order their names first appear (module order, then source order). */
export function discoverTests(modules: readonly Module[]): Discovery {
  // NB: a package's rules merge across files: definitions are grouped by package and name over all modules.
  const groups = new Map<string, { pkg: readonly string[]; name: string; rules: { rule: Rule; file: string }[] }>();
  for (const m of modules) {
    for (const rule of m.rules) {
      const name = testName(rule);
      if (name === undefined) continue;
      const key = [...m.package.path, name].join('\u0000');
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { pkg: m.package.path, name, rules: [] }));
      group.rules.push({ rule, file: m.file });
    }
  }
  const namesOf = packageRuleNames(modules);
  const tests: TestCase[] = [];
  const renames: Rename[] = [];
  for (const { pkg, name, rules } of groups.values()) {
    const skip = name.startsWith(TODO_PREFIX);
    // A default is no definition of its own (it is the value when the others are undefined), unless it is alone.
    const defs = rules.filter((r) => !r.rule.default);
    const runs = skip || defs.length === 0 ? rules.slice(0, 1) : defs;
    const display = packageRef(pkg);
    runs.forEach(({ rule, file }, i) => {
      let refName = name;
      let shown = name;
      if (i > 0) {
        const suffix = String(i).padStart(2, '0');
        shown = `${name}#${suffix}`;
        refName = freshName(`${name}__${suffix}`, namesOf.get(pkg.join('\u0000'))!);
        renames.push({ file, offset: rule.head.ref[0]!.loc.offset, length: name.length, text: refName });
      }
      tests.push({
        package: display,
        name: shown,
        fullName: `${display}.${shown}`,
        ref: pkg.some((p) => p.includes('.')) ? undefined : ['data', ...pkg, refName].join('.'),
        location: { file: rule.loc.file, row: rule.loc.row, col: rule.loc.col },
        skip,
      });
    });
  }
  return { tests, renames };
}

/** The rule's name when it is a test or a todo test: a plain name (no ref head), not a function. */
function testName(rule: Rule): string | undefined {
  const ref = rule.head.ref;
  const first = ref[0];
  if (ref.length !== 1 || first?.type !== 'var' || rule.head.args !== undefined) return undefined;
  return first.name.startsWith(TEST_PREFIX) || first.name.startsWith(TODO_PREFIX) ? first.name : undefined;
}

function packageRuleNames(modules: readonly Module[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of modules) {
    const key = m.package.path.join('\u0000');
    let names = out.get(key);
    if (!names) out.set(key, (names = new Set()));
    for (const r of m.rules) {
      const first = r.head.ref[0];
      if (first?.type === 'var') names.add(first.name);
    }
  }
  return out;
}

function freshName(base: string, taken: Set<string>): string {
  let name = base;
  while (taken.has(name)) name = `${name}_`;
  taken.add(name);
  return name;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `data.a.b` as OPA prints a package path, with `["c-d"]` for parts that are not identifiers. */
export function packageRef(path: readonly string[]): string {
  return `data${path.map((p) => (IDENT.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('')}`;
}

/** The sources with the renames applied (offsets are those of the original text, so later ones go first). */
export function applyRenames<T extends { name: string; source: string }>(
  sources: readonly T[],
  renames: readonly Rename[],
): T[] {
  return sources.map((s) => {
    const mine = renames.filter((r) => r.file === s.name).sort((a, b) => b.offset - a.offset);
    if (mine.length === 0) return s;
    let text = s.source;
    for (const r of mine) text = text.slice(0, r.offset) + r.text + text.slice(r.offset + r.length);
    return { ...s, source: text };
  });
}
