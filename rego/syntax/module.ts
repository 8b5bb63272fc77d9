/**
 * Turns parsed statements into a Module: package first, imports, rules (bare expressions such as
 * `p := 1` or `p[x]` become rules, as in OPA), annotations, and the v1 syntax checks that OPA
 * reports as parse errors (`if`/`contains` required, keywords as rule names …).
 */
import { RegoParseError, diagnostic, type Diagnostic, type Location } from '../errors.js';
import { parseAnnotations } from './annotations.js';
import type { Expr, Head, Module, Rule, Term } from './ast.js';
import { Parser, isGround, isKeywordIn, termTypeName, trueExpr, type Statement } from './parser.js';

export interface ParseOptions {
  /** @default 'v1' */
  regoVersion?: 'v0' | 'v1';
  /**
   * accept OPA's experimental keywords (`import future.keywords.and|or|not`). Each module opts in with
   * its own import, so accepting them changes no module that does not import them; `false` gives OPA's
   * stock parser, where such an import is a parse error. @default true
   */
  experimentalKeywords?: boolean;
}

/** Parses one module; throws RegoParseError with positioned diagnostics. */
export function parseModule(file: string, source: string, opts: ParseOptions = {}): Module {
  const version = opts.regoVersion ?? 'v1';
  const p = new Parser(file, source, version, false, opts.experimentalKeywords !== false);
  const stmts = p.parseStatements();
  if (p.errors.length > 0) throw new RegoParseError(p.errors);
  const errs: Diagnostic[] = [];
  const err = (msg: string, loc: Location): void => {
    errs.push(diagnostic('rego_parse_error', msg, loc, source));
  };
  if (stmts.length === 0) {
    throw new RegoParseError([
      diagnostic('rego_parse_error', 'empty module', { file, row: 1, col: 1, offset: 0 }, source),
    ]);
  }
  const first = stmts[0]!;
  if (first.kind !== 'package') err('package expected', stmtLoc(first));
  const mod: Module = {
    file,
    source,
    regoVersion: version,
    package: first.kind === 'package' ? first.pkg : { path: [], loc: stmtLoc(first) },
    imports: [],
    rules: [],
    comments: p.allComments,
    annotations: [],
  };
  let compatV1 = version === 'v1';
  for (const st of stmts.slice(1)) {
    switch (st.kind) {
      case 'import': {
        mod.imports.push(st.imp);
        const t = st.imp.path.terms;
        if (
          t.length === 2 &&
          t[0]!.type === 'var' &&
          t[0]!.name === 'rego' &&
          t[1]!.type === 'scalar' &&
          t[1]!.value === 'v1'
        ) {
          compatV1 = true;
        }
        break;
      }
      case 'rules':
        for (const r of st.rules) mod.rules.push(r);
        break;
      case 'body': {
        const r = ruleFromBody(st.body, source);
        if (typeof r === 'string') err(r, st.body[0]!.loc);
        else mod.rules.push(r);
        break;
      }
      case 'package':
        err('unexpected package', st.pkg.loc);
        break;
    }
  }
  for (const r of mod.rules) setModule(r, mod);
  if (compatV1) {
    for (const rule of mod.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) checkV1Rule(r, err);
    }
  }
  if (errs.length > 0) throw new RegoParseError(errs);
  const ann = parseAnnotations(mod);
  if (ann.errors.length > 0) throw new RegoParseError(ann.errors);
  return mod;
}

function setModule(r: Rule, m: Module): void {
  r.module = m;
  if (r.else) setModule(r.else, m);
}

function stmtLoc(s: Statement): Location {
  switch (s.kind) {
    case 'package':
      return s.pkg.loc;
    case 'import':
      return s.imp.loc;
    case 'rules':
      return s.rules[0]!.loc;
    case 'body':
      return s.loc;
  }
}

function checkV1Rule(rule: Rule, err: (msg: string, loc: Location) => void): void {
  const t = rule.head.args ? 'function' : 'rule';
  const name = rule.head.ref[0]?.type === 'var' ? rule.head.ref[0].name : '';
  if (rule.head.ref.length < 2 && isKeywordIn(name, 'v1'))
    err(`${name} keyword cannot be used for rule name`, rule.loc);
  if (rule.generatedBody && rule.head.generatedValue)
    err(`${t} must have value assignment and/or body declaration`, rule.loc);
  if (!rule.generatedBody && !rule.head.ifKw && !rule.default)
    err(`\`if\` keyword is required before ${t} body`, rule.loc);
  if (rule.head.value === undefined && !rule.head.contains) {
    err('`contains` keyword is required for partial set rules', rule.loc);
  }
}

function constRule(head: Head, loc: Location, source: string): Rule {
  return {
    loc,
    default: false,
    head,
    body: [trueExpr(loc)],
    generatedBody: true,
    text: source.slice(loc.offset, loc.offset),
  };
}

/** OPA's ParseRuleFromBody: a single bare expression at module level defines a rule. */
function ruleFromBody(body: Expr[], source: string): Rule | string {
  if (body.length !== 1) return 'multiple expressions cannot be used for rule head';
  const e = body[0]!;
  if (e.with.length > 0) return 'expressions using with keyword cannot be used for rule head';
  if (e.negated) return 'negated expressions cannot be used for rule head';
  const terms = e.terms;
  if (!Array.isArray(terms)) {
    if (terms.type === 'some') return "'some' declarations cannot be used for rule head";
    if (terms.type === 'every') return 'expression cannot be used for rule head';
    const t = terms as Term;
    if (t.type !== 'ref') return `${termTypeName(t)} cannot be used for rule name`;
    if (t.terms[0]!.type !== 'var') return `invalid rule head: ${t.type}`;
    const loc = t.loc;
    if (t.terms.length > 2) {
      return withText(
        constRule(baseHead(t.terms, loc, { value: trueTerm(loc), generatedValue: true }), loc, source),
        e,
        source,
      );
    }
    if (t.terms.length === 1) return 'refs cannot be used for rule head';
    return withText(constRule(baseHead([t.terms[0]!], loc, { key: t.terms[1]! }), loc, source), e, source);
  }
  const op = terms[0]!;
  const opName = op.type === 'ref' && op.terms.length === 1 && op.terms[0]!.type === 'var' ? op.terms[0]!.name : '';
  if (opName === 'eq' || opName === 'assign') {
    const lhs = terms[1];
    const rhs = terms[2];
    if (!lhs || !rhs) return 'assignment requires two operands';
    const assign = opName === 'assign';
    let r: Rule | string;
    if (lhs.type === 'call') {
      if (lhs.fn.terms[0]!.type !== 'var') return 'invalid rule head';
      r = constRule(baseHead(lhs.fn.terms, lhs.loc, { value: rhs, args: lhs.args, assign }), lhs.loc, source);
    } else if (lhs.type === 'var') {
      r = constRule(baseHead([lhs], lhs.loc, { value: rhs, assign }), lhs.loc, source);
    } else if (lhs.type === 'ref') {
      if (lhs.terms[0]!.type !== 'var') return `invalid rule head: ${termTypeName(lhs)}`;
      const h = baseHead(lhs.terms, rhs.loc, { value: rhs, assign });
      if (lhs.terms.length === 2) h.key = lhs.terms[1];
      r = constRule(h, rhs.loc, source);
    } else return `${termTypeName(lhs)} cannot be used for rule name`;
    r.loc = e.loc;
    r.head.loc = e.loc;
    return withText(r, e, source);
  }
  if (terms.length <= 1) return 'rule argument list must take at least one argument';
  if (op.type !== 'ref' || op.terms[0]!.type !== 'var') return 'invalid rule head';
  return withText(
    constRule(baseHead(op.terms, op.loc, { value: trueTerm(op.loc), args: terms.slice(1) }), op.loc, source),
    e,
    source,
  );
}

function withText(r: Rule, e: Expr, source: string): Rule {
  const end = exprEnd(source, e.loc.offset);
  r.text = source.slice(e.loc.offset, end);
  return r;
}

function exprEnd(source: string, from: number): number {
  const nl = source.indexOf('\n', from);
  return nl < 0 ? source.length : nl;
}

function trueTerm(loc: Location): Term {
  return { type: 'scalar', value: true, loc };
}

function baseHead(ref: Term[], loc: Location, extra: Partial<Head>): Head {
  return { ref, loc, assign: false, contains: false, ifKw: false, generatedValue: false, ...extra };
}

export { isGround };
