/**
 * Lowering: compiled AST → evaluation plan (eval/ir.ts). Vars become frame slots, ground
 * composites become constant values, calls are bound to builtins or rule nodes once.
 */
import type { Builtin, BuiltinRegistry } from '../builtins/registry.js';
import type { Location } from '../errors.js';
import {
  callIR,
  exprIR,
  ruleIR,
  termIR,
  type BodyIR,
  type CallIR,
  type ExprIR,
  type IterIR,
  type LogicIR,
  type NodeIR,
  type RuleIR,
  type TermIR,
  type WithIR,
} from '../eval/ir.js';
import type { Expr, LogicNode, Term } from '../syntax/ast.js';
import { scalarValue } from '../syntax/parser-scalars.js';
import { callName } from '../syntax/walk.js';
import { RObject, RSet, type Value } from '../value.js';
import { ruleRef, type PlacedRule } from './tree.js';

export class Slots {
  private readonly map = new Map<string, number>();
  get size(): number {
    return this.map.size;
  }
  slot(name: string): number {
    let s = this.map.get(name);
    if (s === undefined) {
      s = this.map.size;
      this.map.set(name, s);
    }
    return s;
  }
  entries(): [string, number][] {
    return [...this.map];
  }
}

export class LowerError extends Error {
  constructor(
    message: string,
    readonly loc: Location,
  ) {
    super(message);
  }
}

export interface LowerEnv {
  registry: BuiltinRegistry;
  /** a builtin by name: real ones, plus stubs for unsupported builtins the policy mocks with `with` */
  builtin(name: string): Builtin | undefined;
  /** the function node for a `data.…` name, if it is one */
  fnNode(name: string): NodeIR | undefined;
  /** arity of a user function or builtin; -1 if unknown */
  arity(name: string): number;
}

function isConst(t: TermIR): t is { k: 'c'; v: Value } {
  return t.k === 'c';
}

export class Lowerer {
  constructor(
    private readonly env: LowerEnv,
    private readonly slots: Slots,
    /** rego.metadata.rule() / chain() of the rule being lowered */
    private readonly meta?: { rule?: Value; chain?: Value },
  ) {}

  term(t: Term): TermIR {
    return termIR(this.termOf(t));
  }

  private termOf(t: Term): TermIR {
    switch (t.type) {
      case 'scalar':
        return { k: 'c', v: scalarValue(t) };
      case 'var':
        return { k: 'v', s: this.slots.slot(t.name), n: t.name };
      case 'ref': {
        const [h, ...rest] = t.terms;
        const path = rest.map((x) => this.term(x));
        const g = path.every(isConst);
        if (h!.type === 'var' && h!.name === 'data') return { k: 'data', path, g };
        if (h!.type === 'var' && h!.name === 'input') return { k: 'input', path, g };
        return { k: 'ref', head: this.term(h!), path };
      }
      case 'array': {
        const items = t.items.map((x) => this.term(x));
        if (items.every(isConst)) return { k: 'c', v: items.map((x) => x.v) };
        return { k: 'arr', items };
      }
      case 'set': {
        const items = t.items.map((x) => this.term(x));
        if (items.every(isConst)) return { k: 'c', v: RSet.from(items.map((x) => x.v)) };
        return { k: 'set', items };
      }
      case 'object': {
        const items = t.items.map(([k, v]) => [this.term(k), this.term(v)] as const);
        if (items.every(([k, v]) => isConst(k) && isConst(v))) {
          return { k: 'c', v: RObject.from(items.map(([k, v]) => [(k as { v: Value }).v, (v as { v: Value }).v])) };
        }
        return { k: 'obj', items };
      }
      case 'arraycompr':
        return { k: 'ac', head: this.term(t.head), body: this.body(t.body) };
      case 'setcompr':
        return { k: 'sc', head: this.term(t.head), body: this.body(t.body) };
      case 'objectcompr':
        return { k: 'oc', key: this.term(t.key), value: this.term(t.value), body: this.body(t.body) };
      default:
        throw new LowerError(`internal error: unexpected ${t.type} term after rewriting`, t.loc);
    }
  }

  body(body: Expr[]): BodyIR {
    return body.map((e) => this.expr(e));
  }

  private withs(e: Expr): WithIR[] | undefined {
    if (e.with.length === 0) return undefined;
    return e.with.map((w) => this.with(w.target, w.value, w.loc));
  }

  private with(target: Term, value: Term, loc: Location): WithIR {
    const parts = target.type === 'ref' ? target.terms : [target];
    const head = parts[0]!;
    const rootName = head.type === 'var' ? head.name : '';
    const strs: string[] = [];
    for (const p of parts.slice(1)) {
      if (p.type !== 'scalar') throw new LowerError('with keyword target must be a ground reference', target.loc);
      strs.push(String(p.value));
    }
    const fnName = [rootName, ...strs].join('.');
    const val = this.term(value);
    const asFn = this.fnValue(value);
    if (rootName === 'input') return { kind: 'input', path: strs, fnName, value: val, loc };
    if (rootName === 'data' && !this.env.fnNode(fnName)) return { kind: 'data', path: strs, fnName, value: val, loc };
    return { kind: 'fn', path: strs, fnName, value: val, loc, ...(asFn ? { fnValue: asFn } : {}) };
  }

  private fnValue(value: Term): WithIR['fnValue'] {
    const name = value.type === 'ref' ? callName([value]) : value.type === 'var' ? value.name : '';
    if (!name) return undefined;
    if (name.startsWith('data.')) {
      const fn = this.env.fnNode(name);
      return fn ? { name, fn } : undefined;
    }
    const b = this.env.builtin(name);
    return b ? { name, builtin: b } : undefined;
  }

  expr(e: Expr): ExprIR {
    const x = this.exprOf(e);
    if (x.op === 'unify' && !x.neg) {
      const iter = iteration(x.a, x.b) ?? iteration(x.b, x.a);
      if (iter !== undefined) return exprIR({ ...x, iter });
    }
    return exprIR(x);
  }

  private exprOf(e: Expr): ExprIR {
    const base = { neg: e.negated, loc: e.loc, ...(e.with.length ? { with: this.withs(e)! } : {}) };
    const t = e.terms;
    if (Array.isArray(t)) {
      const name = callName(t);
      if (name === 'eq') return { op: 'unify', ...base, a: this.term(t[1]!), b: this.term(t[2]!) };
      if (name === 'rego.metadata.rule' || name === 'rego.metadata.chain') {
        const v =
          (name === 'rego.metadata.rule' ? this.meta?.rule : this.meta?.chain) ??
          (name === 'rego.metadata.rule' ? new RObject() : []);
        const out = t[1];
        if (out === undefined) return { op: 'term', ...base, t: termIR({ k: 'c', v: true }) };
        return { op: 'unify', ...base, a: this.term(out), b: termIR({ k: 'c', v }) };
      }
      return { op: 'call', ...base, call: this.call(name, t.slice(1), e.loc) };
    }
    if (t.type === 'every') {
      return {
        op: 'every',
        ...base,
        ...(t.key ? { key: this.term(t.key) } : {}),
        value: this.term(t.value),
        domain: this.term(t.domain),
        body: this.body(t.body),
      };
    }
    if (t.type === 'some') return { op: 'term', ...base, t: termIR({ k: 'c', v: true }) };
    if (t.type === 'logic') return { op: 'logic', ...base, node: this.logic(t.node) };
    return { op: 'term', ...base, t: this.term(t as Term) };
  }

  private logic(n: LogicNode): LogicIR {
    if (n.kind === 'body') return { kind: 'body', body: this.body(n.body) };
    if (n.kind === 'not') return { kind: 'not', operand: this.logic(n.operand) };
    return { kind: n.kind, left: this.logic(n.left), right: this.logic(n.right) };
  }

  private call(name: string, argTerms: Term[], loc: Location): CallIR {
    const arity = this.env.arity(name);
    const args = argTerms.map((a) => this.term(a));
    const inputs = arity >= 0 ? args.slice(0, arity) : args;
    const out = arity >= 0 && args.length > arity ? args[arity] : undefined;
    const fn = name.startsWith('data.') ? this.env.fnNode(name) : undefined;
    const builtin = fn ? undefined : this.env.builtin(name);
    if (!fn && !builtin && !name.startsWith('data.')) throw new LowerError(`undefined function ${name}`, loc);
    return callIR({ name, args: inputs, out, fn, builtin });
  }
}

/** `out = coll[key]` with out and key two vars: the iteration the evaluator runs as a loop (IterIR). */
function iteration(out: TermIR, src: TermIR): IterIR | undefined {
  if (out.k !== 'v' || (src.k !== 'data' && src.k !== 'input' && src.k !== 'ref') || src.path.length === 0)
    return undefined;
  const key = src.path[src.path.length - 1]!;
  if (key.k !== 'v' || key.s === out.s) return undefined;
  const path = src.path.slice(0, -1);
  const coll =
    src.k === 'ref' ? termIR({ k: 'ref', head: src.head, path }) : termIR({ k: src.k, path, g: path.every(isConst) });
  return { coll, key: key.s, out: out.s };
}

function termHasVars(t: TermIR): boolean {
  switch (t.k) {
    case 'c':
      return false;
    case 'v':
      return true;
    case 'ref':
      return termHasVars(t.head) || t.path.some(termHasVars);
    case 'data':
    case 'input':
      return t.path.some(termHasVars);
    case 'arr':
    case 'set':
      return t.items.some(termHasVars);
    case 'obj':
      return t.items.some(([k, v]) => termHasVars(k) || termHasVars(v));
    default:
      return true;
  }
}

export function lowerRule(
  pr: PlacedRule,
  env: LowerEnv,
  metadata?: (pr: PlacedRule) => { rule?: Value; chain?: Value },
): RuleIR {
  const lowerOne = (rule: PlacedRule['rule']): RuleIR => {
    const slots = new Slots();
    const md = metadata?.({ ...pr, rule });
    const lw = new Lowerer(env, slots, md);
    const h = rule.head;
    const args = h.args?.map((a) => lw.term(a));
    // NB: take the suffix from the rewritten head, not pr.suffix (captured before local renaming).
    const suffix =
      pr.kind === 'function'
        ? []
        : ruleRef(pr.module, rule)
            .slice(1 + pr.nodePath.length)
            .map((s) => lw.term(s));
    const key = h.value === undefined && h.key ? lw.term(h.key) : undefined;
    const value = h.value ? lw.term(h.value) : undefined;
    const body = lw.body(rule.body);
    const ground = !suffix.some(termHasVars) && !(key && termHasVars(key)) && !(value && termHasVars(value));
    return ruleIR({
      kind: pr.kind,
      loc: rule.loc,
      nslots: slots.size,
      ...(args ? { args } : {}),
      suffix,
      ...(key ? { key } : {}),
      ...(value ? { value } : {}),
      body,
      ground,
      text: rule.text,
      ...(md?.rule !== undefined ? { annotations: md.rule } : {}),
      ...(md?.chain !== undefined ? { chain: md.chain } : {}),
      ...(rule.else ? { else: lowerOne(rule.else) } : {}),
    });
  };
  return lowerOne(pr.rule);
}
