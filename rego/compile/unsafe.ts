/**
 * Reporting safety: unsafe vars in bodies and rule heads, with OPA's texts. Since OPA 1.20 a
 * message names the rule (`in rule p`) when another rule starts on the same line.
 */
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import type { Expr, Module, Rule, Term } from '../syntax/ast.js';
import { headName } from '../syntax/format.js';
import { termVars } from '../syntax/walk.js';
import { isGenerated, reorderBodyForSafety, type SafetyEnv, type Unsafe } from './safety.js';

export function ruleGlobals(r: Rule): Set<string> {
  const g = new Set(['data', 'input']);
  for (const a of r.head.args ?? []) termVars(a, {}, g);
  return g;
}

export function rulesByRow(m: Module): Map<number, Set<string>> {
  const rows = new Map<number, Set<string>>();
  for (const r of m.rules) {
    let s = rows.get(r.loc.row);
    if (!s) rows.set(r.loc.row, (s = new Set()));
    s.add(headName(r.head.ref));
  }
  return rows;
}

/** ` in rule <name>` when another, differently named rule starts on the same line (OPA 1.20). */
export function ruleLabel(x: Rule, top: Rule, rows: Map<number, Set<string>>): string {
  if (x !== top) return '';
  const names = rows.get(top.loc.row);
  if (names && names.size > 1) return ` in rule ${headName(top.head.ref)}`;
  return '';
}

export function unsafeErrors(
  unsafe: Unsafe,
  src: (l: Location) => string | undefined,
  label: string,
  names: Map<string, string>,
): Diagnostic[] {
  const firstLoc = new Map<string, Location>();
  for (const [e, vs] of unsafe) {
    for (const v of vs) {
      const cur = firstLoc.get(v);
      if (cur === undefined || cmpLoc(e.loc, cur) < 0) firstLoc.set(v, e.loc);
    }
  }
  const out: Diagnostic[] = [];
  const sorted = [...firstLoc].sort((a, b) => cmpLoc(a[1], b[1]));
  for (const [v, loc] of sorted) {
    const user = names.get(v) ?? v;
    if (isGenerated(user)) continue;
    out.push(diagnostic('rego_unsafe_var_error', `var ${user} is unsafe${label}`, loc, src(loc)));
  }
  if (out.length > 0) return out;
  const seen = new Set<Expr>();
  for (const [e] of [...unsafe].sort((a, b) => cmpLoc(a[0].loc, b[0].loc))) {
    if (seen.has(e)) continue;
    seen.add(e);
    out.push(diagnostic('rego_unsafe_var_error', 'expression is unsafe', e.loc, src(e.loc)));
  }
  return out;
}

function cmpLoc(a: Location, b: Location): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.row - b.row || a.col - b.col;
}

export function checkRuleSafety(
  r: Rule,
  env: SafetyEnv,
  src: (l: Location) => string | undefined,
  label: string,
  names: Map<string, string>,
  /** var names written in the source (before rewriting) */
  userNames: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  const globals = ruleGlobals(r);
  const [body, unsafe] = reorderBodyForSafety(env, globals, r.body);
  if (unsafe.size > 0) return unsafeErrors(unsafe, src, label, names);
  r.body = body;
  // Head vars must be bound by the body (or be arguments).
  const bound = new Set(globals);
  for (const e of body) {
    const t = e.terms;
    const terms = Array.isArray(t)
      ? t
      : t.type === 'some' || t.type === 'logic'
        ? []
        : t.type === 'every'
          ? [t.domain]
          : [t as Term];
    for (const x of terms) termVars(x, { skipClosures: true }, bound);
  }
  const out: Diagnostic[] = [];
  const headTerms: Term[] = [
    ...r.head.ref.slice(1),
    ...(r.head.key ? [r.head.key] : []),
    ...(r.head.value ? [r.head.value] : []),
  ];
  const reported = new Set<string>();
  for (const ht of headTerms) {
    walkVarsWithLoc(ht, (name, loc) => {
      if (bound.has(name) || reported.has(name)) return;
      const user = names.get(name) ?? name;
      // NB: a user may write a name that looks generated (`__local0__`); only names we made are skipped.
      if (isGenerated(user) && !userNames.has(name)) return;
      reported.add(name);
      out.push(diagnostic('rego_unsafe_var_error', `var ${user} is unsafe${label}`, loc, src(loc)));
    });
  }
  return out;
}

function walkVarsWithLoc(t: Term, fn: (name: string, loc: Location) => void): void {
  switch (t.type) {
    case 'var':
      fn(t.name, t.loc);
      return;
    case 'ref':
      t.terms.slice(1).forEach((x) => walkVarsWithLoc(x, fn));
      if (t.terms[0]?.type !== 'var') walkVarsWithLoc(t.terms[0]!, fn);
      return;
    case 'array':
    case 'set':
      t.items.forEach((x) => walkVarsWithLoc(x, fn));
      return;
    case 'object':
      for (const [k, v] of t.items) {
        walkVarsWithLoc(k, fn);
        walkVarsWithLoc(v, fn);
      }
      return;
    case 'call':
      t.args.forEach((x) => walkVarsWithLoc(x, fn));
      return;
    default:
      return;
  }
}
