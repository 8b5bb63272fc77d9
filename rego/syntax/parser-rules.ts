/**
 * Rules: heads (names, general refs, args, `contains`, `:=`/`=` values), bodies (`if`, braces,
 * several bodies), `default` rules and `else` chains — with OPA's error messages.
 */
import type { Head, Rule, Term } from './ast.js';
import { findInTerm, headName, isGround, termTypeName, trueExpr } from './format.js';
import { LiteralParser, isTermExpr } from './parser-literals.js';

export abstract class RuleParser extends LiteralParser {
  protected parseRules(): Rule[] | undefined {
    const loc = this.loc();
    const startOffset = this.s.offset;
    this.scanAheadRef();
    let isDefault = false;
    if (this.t() === 'default') {
      this.scan();
      isDefault = true;
      this.scanAheadRef();
    }
    if (this.t() !== 'IDENT') return undefined;
    const parsed = this.parseHead(isDefault);
    if (parsed === undefined) return undefined;
    const { head, usesContains } = parsed;
    const rule: Rule = { loc, default: isDefault, head, body: [], generatedBody: false, text: '' };
    if (isDefault) {
      if (!this.validateDefault(rule)) return undefined;
      rule.body = [trueExpr(loc)];
      rule.generatedBody = true;
      rule.text = this.text(startOffset, this.s.lastEnd);
      return [rule];
    }
    const hasIf = this.t() === 'if';
    if (hasIf && !usesContains && head.ref.length === 2) {
      const v = head.ref[1]!;
      if ((!isGround(v) || v.type === 'ref') && !head.args) head.key = v;
      if (head.value === undefined) {
        head.generatedValue = true;
        head.value = { type: 'scalar', value: true, loc: head.loc };
      } else if (head.ref[0]!.type !== 'var') return undefined;
    }
    if (!hasIf && !usesContains && !head.args && head.ref.length === 2) {
      if (head.ref[0]!.type !== 'var') return undefined;
      head.key = head.ref[1];
      if (head.value === undefined) head.ref = head.ref.slice(0, 1);
    }
    let parsedBody = false;
    if (hasIf) {
      head.ifKw = true;
      this.scan();
      const st = this.save();
      const expr = this.parseLiteral();
      if (expr !== undefined && !(isTermExpr(expr) && (expr.terms as Term).type === 'set')) {
        rule.body.push(expr);
        parsedBody = true;
      } else this.restore(st);
    }
    if (!parsedBody) {
      if (this.t() === '{') {
        this.scan();
        const body = this.parseBody('}');
        if (body === undefined) return undefined;
        rule.body = body;
        this.scan();
      } else if (usesContains && !hasIf) {
        rule.body = [trueExpr(loc)];
        rule.generatedBody = true;
        rule.text = this.text(startOffset, this.s.lastEnd);
        return [rule];
      } else return undefined;
    }
    if (this.t() === 'else' && !this.scanAheadRef()) {
      if (head.ref.length > 1 && !head.ref.every(isGroundRefPart)) {
        this.addError('else keyword cannot be used on rules with variables in head', this.loc());
        return undefined;
      }
      if (head.key !== undefined) {
        this.addError('else keyword cannot be used on multi-value rules', this.loc());
        return undefined;
      }
      const e = this.parseElse(head);
      if (e === undefined) return undefined;
      rule.else = e;
    }
    rule.text = this.text(startOffset, this.s.lastEnd);
    const rules: Rule[] = [rule];
    while (this.t() === '{') {
      if (rule.else !== undefined) {
        this.addError('expected else keyword', this.loc());
        return undefined;
      }
      const bloc = this.loc();
      const bstart = this.s.offset;
      this.scan();
      const body = this.parseBody('}');
      if (body === undefined) return undefined;
      this.scan();
      const nextHead: Head = { ...cloneHead(head, () => this.genWildcard()), loc: bloc };
      rules.push({
        loc: bloc,
        default: false,
        head: nextHead,
        body,
        generatedBody: false,
        text: this.text(bstart, this.s.lastEnd),
      });
    }
    return rules;
  }

  protected parseElse(head: Head): Rule | undefined {
    const loc = this.loc();
    const start = this.s.offset;
    const h: Head = { ...cloneHead(head, () => this.genWildcard()), loc, generatedValue: false, ifKw: false };
    const rule: Rule = { loc, default: false, head: h, body: [], generatedBody: false, text: '' };
    this.scan();
    switch (this.t()) {
      case '{':
      case 'if':
        h.generatedValue = true;
        h.value = { type: 'scalar', value: true, loc };
        break;
      case ':=':
      case '=': {
        h.assign = this.t() === ':=';
        this.scan();
        const v = this.parseTermInfixCall();
        if (v === undefined) return undefined;
        h.value = v;
        break;
      }
      default:
        this.illegal('expected else value term or rule body');
        return undefined;
    }
    const hasIf = this.t() === 'if';
    const hasBrace = this.t() === '{';
    if (!hasIf && !hasBrace) {
      rule.body = [trueExpr(loc)];
      rule.generatedBody = true;
      rule.text = this.text(start, this.s.lastEnd);
      return rule;
    }
    if (hasIf) {
      h.ifKw = true;
      this.scan();
    }
    if (this.t() === '{') {
      this.scan();
      const body = this.parseBody('}');
      if (body === undefined) return undefined;
      rule.body = body;
      this.scan();
    } else if (this.t() !== 'EOF') {
      const e = this.parseLiteral();
      if (e === undefined) return undefined;
      rule.body = [e];
    } else {
      this.illegal('rule body expected');
      return undefined;
    }
    rule.text = this.text(start, this.s.lastEnd);
    if (this.t() === 'else') {
      const e = this.parseElse(head);
      if (e === undefined) return undefined;
      rule.else = e;
    }
    return rule;
  }

  protected parseHead(isDefault: boolean): { head: Head; usesContains: boolean } | undefined {
    const loc = this.loc();
    const first = this.parseVar();
    const ref = this.parseHeadFinish(first);
    if (ref === undefined) {
      this.illegal('expected rule head name');
      return undefined;
    }
    const head: Head = { ref: [], loc, assign: false, contains: false, ifKw: false, generatedValue: false };
    if (ref.type === 'var') head.ref = [ref];
    else if (ref.type === 'ref') head.ref = ref.terms;
    else if (ref.type === 'call') {
      const fnTerms = ref.fn.terms;
      if (fnTerms[0]?.type !== 'var') {
        this.illegal('rule head ref invalid');
        return undefined;
      }
      head.ref = fnTerms;
      head.args = ref.args;
    } else return undefined;
    const name = headName(head.ref);
    switch (this.t()) {
      case 'contains': {
        if (head.args) {
          this.illegal(
            `the contains keyword can only be used with multi-value rule definitions (e.g., ${name} contains <VALUE> { ... })`,
          );
        }
        this.scan();
        const key = this.parseTermInfixCall();
        if (key === undefined) {
          this.illegal(`expected rule key term (e.g., ${name} contains <VALUE> { ... })`);
          return undefined;
        }
        head.key = key;
        head.contains = true;
        return { head, usesContains: true };
      }
      case '=': {
        this.scan();
        const v = this.parseTermInfixCall();
        if (v === undefined) {
          this.illegal(`expected rule value term (e.g., ${name}[${head.key ? '…' : '<nil>'}] = <VALUE> { ... })`);
          return undefined;
        }
        head.value = v;
        break;
      }
      case ':=': {
        this.scan();
        head.assign = true;
        const v = this.parseTermInfixCall();
        if (v === undefined) {
          if (head.args) this.illegal(`expected function value term (e.g., ${name}(...) := <VALUE> { ... })`);
          else if (isDefault) this.illegal(`expected default rule value term (e.g., default ${name} := <VALUE>)`);
          else this.illegal(`expected rule value term (e.g., ${name} := <VALUE> { ... })`);
          return undefined;
        }
        head.value = v;
        break;
      }
    }
    if (head.value === undefined && head.key === undefined) {
      if (head.ref.length !== 2 || head.args) {
        head.generatedValue = true;
        head.value = { type: 'scalar', value: true, loc };
      }
    }
    return { head, usesContains: false };
  }

  protected parseHeadFinish(head: Term): Term | undefined {
    this.scanWS();
    switch (this.t()) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '&':
      case '|':
      case '==':
      case '!=':
      case '>':
      case '>=':
      case '<':
      case '<=':
        this.illegal();
        break;
      case 'WS':
        this.scan();
    }
    switch (this.t()) {
      case '(':
      case '.':
      case '[':
        return this.parseRef(head);
      case 'WS':
        this.scan();
    }
    if (head.type === 'var' && (head.name === 'data' || head.name === 'input')) {
      return { type: 'ref', terms: [head], loc: head.loc };
    }
    return head;
  }

  protected validateDefault(rule: Rule): boolean {
    const v = rule.head.value;
    if (v === undefined) {
      this.addError('illegal default rule (must have a value)', rule.loc);
      return false;
    }
    const bad = findInTerm(v, (t) => t.type === 'ref' || t.type === 'var' || t.type === 'call');
    if (bad !== undefined) {
      this.addError(`illegal default rule (value cannot contain ${bad.type})`, rule.loc);
      return false;
    }
    if (rule.head.args) {
      const seen = new Set<string>();
      for (const a of rule.head.args) {
        if (a.type !== 'var') {
          this.addError(`illegal default rule (arguments cannot contain ${termTypeName(a)})`, rule.loc);
          return false;
        }
        if (seen.has(a.name)) {
          this.addError(`illegal default rule (arguments cannot be repeated ${a.name})`, rule.loc);
          return false;
        }
        seen.add(a.name);
      }
    }
    return true;
  }
}

function isGroundRefPart(t: Term, i: number): boolean {
  return i === 0 || isGround(t);
}

function cloneHead(h: Head, wildcard: () => string): Head {
  const args = h.args?.map((a) => (a.type === 'var' && a.name.startsWith('$') ? { ...a, name: wildcard() } : a));
  return { ...h, ...(args ? { args } : {}) };
}
