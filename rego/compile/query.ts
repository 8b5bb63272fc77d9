/**
 * Query compilation: a body (e.g. `data.test.p = x`) is compiled against a plan with the same
 * stages as rule bodies; its user variables become the result bindings.
 */
import { RegoCompileError, diagnostic, type Diagnostic } from '../errors.js';
import type { BodyIR } from '../eval/ir.js';
import type { Expr, Rule } from '../syntax/ast.js';
import { Parser } from '../syntax/parser.js';
import { checkCalls } from './checks.js';
import type { Plan } from './compiler.js';
import { DeclStack, LocalRewriter } from './locals.js';
import { Lowerer, LowerError, Slots } from './lower.js';
import { checkPrintCalls } from './print.js';
import { TermRewriter } from './rewrite.js';
import { isGenerated, reorderBodyForSafety } from './safety.js';
import { exprVarsOf } from './vars.js';

export interface QueryPlan {
  readonly body: BodyIR;
  readonly nslots: number;
  /** user-visible variables: name → slot */
  readonly outputs: readonly (readonly [string, number])[];
}

const QUERY_FILE = '<query>';

export function parseQuery(text: string, regoVersion: 'v0' | 'v1' = 'v1'): Expr[] {
  const p = new Parser(QUERY_FILE, text, regoVersion, true);
  const stmts = p.parseStatements();
  if (p.errors.length > 0) throw new RegoCompileError([...p.errors]);
  const body: Expr[] = [];
  for (const s of stmts) if (s.kind === 'body') body.push(...s.body);
  if (body.length === 0) {
    throw new RegoCompileError([
      diagnostic('rego_parse_error', 'empty query', { file: QUERY_FILE, row: 1, col: 1, offset: 0 }, text),
    ]);
  }
  return body;
}

export function compileQuery(plan: Plan, text: string, regoVersion: 'v0' | 'v1' = 'v1'): QueryPlan {
  const parsed = parseQuery(text, regoVersion);
  const src = (): string => text;
  const userVars = new Set<string>();
  for (const e of parsed) for (const v of exprVarsOf(e)) userVars.add(v);
  const locals = new LocalRewriter(plan.gen, src);
  const stack = new DeclStack();
  let body = locals.rewriteBody(parsed, stack);
  if (locals.errors.length > 0) throw new RegoCompileError(locals.errors);
  const fake: Rule = {
    loc: parsed[0]!.loc,
    default: false,
    head: { ref: [], loc: parsed[0]!.loc, assign: false, contains: false, ifKw: false, generatedValue: false },
    body,
    generatedBody: false,
    text,
  };
  const errs: Diagnostic[] = [...checkCalls(fake, plan.env, plan.registry, src)];
  if (errs.length > 0) throw new RegoCompileError(errs);
  const globals = new Set(['data', 'input']);
  const perr = checkPrintCalls(body, globals, plan.env, src, locals.names);
  if (perr.length > 0) throw new RegoCompileError(perr);
  body = new TermRewriter(plan.gen, plan.env.isFunctionValue).body(body);
  const [ordered, unsafe] = reorderBodyForSafety(plan.env, globals, body);
  if (unsafe.size > 0) {
    const out: Diagnostic[] = [];
    for (const [e, vs] of unsafe) {
      for (const v of vs) {
        const user = locals.names.get(v) ?? v;
        if (!isGenerated(user)) out.push(diagnostic('rego_unsafe_var_error', `var ${user} is unsafe`, e.loc, text));
      }
    }
    if (out.length === 0)
      for (const [e] of unsafe) out.push(diagnostic('rego_unsafe_var_error', 'expression is unsafe', e.loc, text));
    throw new RegoCompileError(out);
  }
  const slots = new Slots();
  let lowered: BodyIR;
  try {
    lowered = new Lowerer(plan.env, slots).body(ordered);
  } catch (e) {
    if (e instanceof LowerError) throw new RegoCompileError([diagnostic('rego_type_error', e.message, e.loc, text)]);
    throw e;
  }
  const outputs: [string, number][] = [];
  for (const [name, slot] of slots.entries()) {
    const user = stack.rewritten.get(name) ?? locals.names.get(name) ?? name;
    if (isGenerated(user) || !userVars.has(user)) continue;
    outputs.push([user, slot]);
  }
  return { body: lowered, nslots: slots.size, outputs };
}
