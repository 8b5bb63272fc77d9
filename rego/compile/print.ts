/**
 * print() operands may only use vars bound before the call (OPA's RewritePrintCalls check):
 * an operand var that nothing binds is reported as `var x is undeclared`.
 */
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import { logicBodies, type Expr, type Term } from '../syntax/ast.js';
import { callName, termVars } from '../syntax/walk.js';
import { outputVarsForBody, type SafetyEnv } from './safety.js';

export function checkPrintCalls(
  body: Expr[],
  globals: Set<string>,
  env: SafetyEnv,
  src: (l: Location) => string | undefined,
  names: Map<string, string>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  body.forEach((e, i) => {
    const safe = new Set([...globals, ...outputVarsForBody(body.slice(0, i), env, globals)]);
    visitClosures(e, (inner, extra) =>
      out.push(...checkPrintCalls(inner, new Set([...safe, ...extra]), env, src, names)),
    );
    if (!Array.isArray(e.terms) || callName(e.terms) !== 'print') return;
    for (const arg of e.terms.slice(1)) {
      const vars = [...termVars(arg, { skipClosures: true, skipCallOp: true })].filter((v) => !safe.has(v)).sort();
      for (const v of vars)
        out.push(diagnostic('rego_compile_error', `var ${names.get(v) ?? v} is undeclared`, arg.loc, src(arg.loc)));
    }
  });
  return out;
}

function visitClosures(e: Expr, fn: (body: Expr[], extra: Set<string>) => void): void {
  const term = (t: Term): void => {
    switch (t.type) {
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
        fn(t.body, new Set());
        return;
      case 'ref':
        t.terms.forEach(term);
        return;
      case 'array':
      case 'set':
        t.items.forEach(term);
        return;
      case 'object':
        for (const [k, v] of t.items) {
          term(k);
          term(v);
        }
        return;
      case 'call':
        t.args.forEach(term);
        return;
      default:
        return;
    }
  };
  const t = e.terms;
  if (Array.isArray(t)) t.forEach(term);
  else if (t.type === 'every') {
    const extra = new Set<string>();
    if (t.key) termVars(t.key, {}, extra);
    termVars(t.value, {}, extra);
    fn(t.body, extra);
  } else if (t.type === 'logic') {
    for (const b of logicBodies(t.node)) fn(b, new Set());
  } else if (t.type !== 'some') term(t as Term);
}
