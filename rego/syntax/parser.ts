/**
 * Statement-level grammar: package, import and rules (heads, bodies, else chains, multiple
 * bodies). Mirrors OPA's parser so that the same source is accepted or rejected with the same
 * messages. Literals are parsed by parser-literals.ts, terms by parser-terms.ts.
 */
import type { Location } from '../errors.js';
import type { Expr, Import, Package, RefTerm, Rule, Term } from './ast.js';
import { isKeywordIn, termTypeName } from './format.js';
import { EXPERIMENTAL_KEYWORDS, FUTURE_KEYWORDS, type Tok } from './tokens.js';
import { RuleParser } from './parser-rules.js';

export type Statement =
  | { kind: 'package'; pkg: Package }
  | { kind: 'import'; imp: Import }
  | { kind: 'rules'; rules: Rule[] }
  | { kind: 'body'; body: Expr[]; loc: Location };

export class Parser extends RuleParser {
  constructor(
    file: string,
    src: string,
    readonly regoVersion: 'v0' | 'v1',
    private readonly skipRules = false,
    /** allow OPA's experimental keywords (`and`, `or`, block `not`) */
    private readonly experimental = false,
  ) {
    super(file, src, []);
    for (const k of ['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false']) {
      this.sc.keywords.add(k);
    }
    if (regoVersion === 'v1') for (const k of FUTURE_KEYWORDS) this.sc.keywords.add(k);
  }

  /** Enables keywords (v0 `import future.keywords.x`, `import rego.v1`). */
  addKeywords(kws: readonly string[]): void {
    for (const k of kws) {
      this.sc.keywords.add(k);
      if (k === 'every') this.sc.keywords.add('in');
    }
  }

  get allComments() {
    return [...this.comments];
  }

  parseStatements(): Statement[] {
    this.scan();
    const out: Statement[] = [];
    while (this.t() !== 'EOF') {
      let st = this.save();
      const pkg = this.parsePackage();
      if (pkg !== undefined) {
        out.push({ kind: 'package', pkg });
        continue;
      }
      if (this.s.errors.length > st.errors.length) break;
      this.restore(st);
      st = this.save();
      const imp = this.parseImport();
      if (imp !== undefined) {
        this.applyImportKeywords(imp);
        out.push({ kind: 'import', imp });
        continue;
      }
      if (this.s.errors.length > st.errors.length) break;
      this.restore(st);
      if (!this.skipRules) {
        st = this.save();
        const rules = this.parseRules();
        if (rules !== undefined) {
          out.push({ kind: 'rules', rules });
          continue;
        }
        if (this.s.errors.length > st.errors.length) break;
        this.restore(st);
      }
      const loc = this.loc();
      const body = this.parseQuery(true, 'EOF');
      if (body !== undefined) {
        out.push({ kind: 'body', body, loc });
        continue;
      }
      break;
    }
    return out;
  }

  private applyImportKeywords(imp: Import): void {
    const t = imp.path.terms;
    const head = t[0];
    if (head?.type !== 'var') return;
    if (head.name === 'rego' && t.length === 2 && t[1]!.type === 'scalar' && t[1]!.value === 'v1') {
      this.addKeywords(FUTURE_KEYWORDS);
      return;
    }
    if (head.name !== 'future') return;
    if (t.length < 2 || t[1]!.type !== 'scalar' || t[1]!.value !== 'keywords') {
      this.addError('invalid import, must be `future.keywords`', imp.path.loc);
      return;
    }
    if (t.length === 2) {
      if (imp.alias) this.addError('`future` imports cannot be aliased', imp.path.loc);
      this.addKeywords(FUTURE_KEYWORDS);
      return;
    }
    if (t.length > 3) {
      this.addError('invalid import, must be `future.keywords.<keyword>`', imp.path.loc);
      return;
    }
    const kw = t[2]!.type === 'scalar' ? String(t[2]!.value) : '';
    const allowed: string[] = [...FUTURE_KEYWORDS, ...(this.experimental ? EXPERIMENTAL_KEYWORDS : [])];
    if (!allowed.includes(kw)) {
      const known = [...allowed].sort().join(', ');
      this.addError(`unexpected keyword, must be one of [${known}]`, imp.path.loc);
      return;
    }
    if (imp.alias) this.addError('`future` imports cannot be aliased', imp.path.loc);
    if (kw === 'not') this.notBlocks = true;
    else this.addKeywords([kw]);
  }

  private parsePackage(): Package | undefined {
    if (this.t() !== 'package') return undefined;
    const loc = this.loc();
    this.scanWS();
    if (this.t() === '.' || this.t() === '[') return undefined;
    if (this.t() === 'WS') this.scan();
    if (this.t() !== 'IDENT' && !this.isRefKeyword(this.t())) {
      this.illegal();
      return undefined;
    }
    this.s.tok = 'IDENT';
    const term = this.parseTerm();
    if (term === undefined) {
      if (this.s.errors.length === 0) this.addError('expected path', this.loc());
      return undefined;
    }
    const path: string[] = [];
    if (term.type === 'var') path.push(term.name);
    else if (term.type === 'ref') {
      const [first, ...rest] = term.terms;
      if (first?.type !== 'var') {
        this.addError(`unexpected ${first?.type ?? 'unknown'} token: expecting var`, first?.loc ?? loc);
        return undefined;
      }
      path.push(first.name);
      for (const r of rest) {
        if (r.type !== 'scalar' || typeof r.value !== 'string') {
          this.addError(`unexpected ${termTypeName(r)} token: expecting string`, r.loc);
          return undefined;
        }
        path.push(r.value);
      }
    } else {
      this.illegal();
      return undefined;
    }
    return { path, loc };
  }

  private parseImport(): Import | undefined {
    if (this.t() !== 'import') return undefined;
    const loc = this.loc();
    this.scanWS();
    if (this.t() === '.' || this.t() === '[') return undefined;
    if (this.t() === 'WS') this.scan();
    if (this.t() !== 'IDENT' && !this.isRefKeyword(this.t())) {
      this.illegal();
      return undefined;
    }
    this.s.tok = 'IDENT';
    // NB: the path is parsed without future keywords so that `import future.keywords.in` works.
    const removed = FUTURE_KEYWORDS.filter((k) => this.sc.keywords.delete(k));
    let term: Term | undefined;
    try {
      term = this.parseTerm();
    } finally {
      for (const k of removed) this.sc.keywords.add(k);
    }
    // The token after the path was scanned without future keywords; rescan it.
    if (term !== undefined && this.t() === 'IDENT' && this.sc.keywords.has(this.s.lit)) {
      this.s.tok = this.s.lit as Tok;
    }
    let path: RefTerm | undefined;
    if (term?.type === 'var') path = { type: 'ref', terms: [term], loc: term.loc };
    else if (term?.type === 'ref') {
      for (const r of term.terms.slice(1)) {
        if (r.type !== 'scalar' || typeof r.value !== 'string') {
          this.addError(`unexpected ${termTypeName(r)} token: expecting string`, r.loc);
          return undefined;
        }
      }
      path = term;
    }
    if (path === undefined) {
      this.addError('expected path', this.loc());
      return undefined;
    }
    const head = path.terms[0]!;
    const root = head.type === 'var' ? head.name : '';
    if (!['data', 'input', 'future', 'rego'].includes(root)) {
      this.hint('if this is unexpected, try updating OPA');
      this.addError(
        `unexpected import path, must begin with one of: {data, future, input, rego}, got: ${root || '?'}`,
        path.loc,
      );
      return undefined;
    }
    const imp: Import = { path, loc };
    if (this.t() === 'as') {
      this.scan();
      if (this.t() !== 'IDENT') {
        this.illegal('expected var');
        return undefined;
      }
      const alias = this.parseTerm();
      if (alias?.type === 'var') {
        imp.alias = alias.name;
        return imp;
      }
      this.illegal('expected var');
      return undefined;
    }
    const last = path.terms[path.terms.length - 1]!;
    const name = path.terms.length === 1 ? (last as { name: string }).name : String((last as { value: unknown }).value);
    if (root !== 'future' && isKeywordIn(name, this.regoVersion)) {
      this.hint('import a different path or use an alias');
      this.addError(`unexpected import path, must not end with a keyword, got: ${name}`, last.loc);
    }
    return imp;
  }
}

export { headName, termText, termTypeName, isGround, findInTerm, isKeywordIn, trueExpr } from './format.js';
