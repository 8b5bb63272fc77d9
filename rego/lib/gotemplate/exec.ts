/**
 * Executes a parsed text/template (parse.ts) the way OPA runs Go's text/template, with
 * `missingkey=error`: a missing map key is an error. The data is the variables object after OPA's
 * JSON round trip (data.ts).
 */
import { Lit, TemplateError, fmtV, goType, sortedKeys, truth, type TemplateValue } from './data.js';
import { callFunction } from './funcs.js';
import { parseTemplate, type Arg, type Pipe, type TNode, type Where } from './parse.js';

type ControlNode = Extract<TNode, { pipe: Pipe; list: TNode[] }>;
class Break {}
class Continue {}

class Exec {
  out = '';
  private readonly vars: [string, TemplateValue][] = [];
  private steps = 0;

  constructor(
    private readonly onStep: () => void,
    root: TemplateValue,
  ) {
    this.vars.push(['$', root]);
  }

  private fail(at: Where, msg: string): never {
    throw new TemplateError(`template: template:${at.line}:${at.col}: executing "template" at <${at.text}>: ${msg}`);
  }

  private lookupVar(name: string, at: Where): TemplateValue {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]![0] === name) return this.vars[i]![1];
    return this.fail(at, `undefined variable: ${name}`);
  }

  private field(recv: TemplateValue, name: string, at: Where): TemplateValue {
    if (recv instanceof Map) {
      if (!recv.has(name)) this.fail(at, `map has no entry for key "${name}"`);
      return recv.get(name)!;
    }
    if (recv === null) this.fail(at, `nil pointer evaluating interface {}.${name}`);
    return this.fail(at, `can't evaluate field ${name} in type ${goType(recv)}`);
  }

  private chain(v: TemplateValue, chain: readonly string[], at: Where): TemplateValue {
    let cur = v;
    for (const name of chain) cur = this.field(cur, name, at);
    return cur;
  }

  private arg(a: Arg, dot: TemplateValue, at: Where): TemplateValue {
    switch (a.t) {
      case 'dot':
        return dot;
      case 'field':
        return this.chain(dot, a.chain, a.at);
      case 'var':
        return this.chain(this.lookupVar(a.name, a.at), a.chain, a.at);
      case 'str':
        return a.v;
      case 'num':
        return new Lit(a.v, a.int);
      case 'bool':
        return a.v;
      case 'nil':
        return this.fail(at, 'nil is not a command');
      case 'pipe':
        return this.chain(this.pipe(a.pipe, dot), a.chain, a.pipe.at);
      case 'fn':
        return callFunction(a.name, [], (msg) => this.fail(at, msg));
    }
  }

  pipe(p: Pipe, dot: TemplateValue): TemplateValue {
    let value: TemplateValue | undefined;
    for (const cmd of p.cmds) {
      const head = cmd[0]!;
      if (head.t === 'fn') {
        const args = cmd.slice(1).map((a) => this.arg(a, dot, p.at));
        if (value !== undefined) args.push(value);
        value = callFunction(head.name, args, (msg) => this.fail(p.at, msg));
      } else {
        if (cmd.length > 1 || value !== undefined) this.fail(p.at, `can't give argument to non-function ${p.at.text}`);
        value = this.arg(head, dot, p.at);
      }
    }
    const result = value ?? null;
    if (p.decl.length === 1) this.setVar(p.decl[0]!, result, p.assign, p.at);
    return result;
  }

  private setVar(name: string, v: TemplateValue, assign: boolean, at: Where): void {
    if (!assign) {
      this.vars.push([name, v]);
      return;
    }
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]![0] === name) {
        this.vars[i]![1] = v;
        return;
      }
    }
    this.fail(at, `undefined variable: ${name}`);
  }

  private print(v: TemplateValue): void {
    this.out += v === null ? '<no value>' : fmtV(v);
  }

  run(list: readonly TNode[], dot: TemplateValue): void {
    for (const n of list) {
      if ((++this.steps & 0x3ff) === 0) this.onStep();
      switch (n.t) {
        case 'text':
          this.out += n.s;
          break;
        case 'action': {
          const v = this.pipe(n.pipe, dot);
          if (n.pipe.decl.length === 0) this.print(v);
          break;
        }
        case 'if':
        case 'with': {
          const mark = this.vars.length;
          const v = this.pipe(n.pipe, dot);
          if (truth(v)) this.run(n.list, n.t === 'with' ? v : dot);
          else if (n.elseList) this.run(n.elseList, dot);
          this.vars.length = mark;
          break;
        }
        case 'range':
          this.range(n, dot);
          break;
        case 'break':
          throw new Break();
        case 'continue':
          throw new Continue();
      }
    }
  }

  private range(n: ControlNode, dot: TemplateValue): void {
    const mark = this.vars.length;
    const decl = n.pipe.decl;
    const v = this.pipe({ ...n.pipe, decl: [] }, dot);
    let entries: [TemplateValue, TemplateValue][];
    if (Array.isArray(v)) entries = v.map((x, i) => [new Lit(i, true), x]);
    else if (v instanceof Map) entries = sortedKeys(v).map((k) => [k, v.get(k)!]);
    else if (v instanceof Lit && v.isInt)
      entries = Array.from({ length: Math.max(0, v.v) }, (_, i) => [new Lit(i, true), new Lit(i, true)]);
    else if (v === null) entries = [];
    else return this.fail(n.pipe.at, `range can't iterate over ${fmtV(v)}`);
    if (entries.length === 0) {
      if (n.elseList) this.run(n.elseList, dot);
      this.vars.length = mark;
      return;
    }
    for (const [k, x] of entries) {
      const inner = this.vars.length;
      if (decl.length === 1) this.vars.push([decl[0]!, x]);
      else if (decl.length === 2) this.vars.push([decl[0]!, k], [decl[1]!, x]);
      try {
        this.run(n.list, x);
      } catch (e) {
        if (e instanceof Break) {
          this.vars.length = inner;
          break;
        }
        if (!(e instanceof Continue)) throw e;
      }
      this.vars.length = inner;
    }
    this.vars.length = mark;
  }
}

/** Runs parsed template `list` over `data` (the root, `.` and `$`). */
export function executeTemplate(list: readonly TNode[], data: TemplateValue, onStep: () => void): string {
  const ex = new Exec(onStep, data);
  ex.run(list, data);
  return ex.out;
}

/** Parses and runs template `src` over `data`; failures throw TemplateError with Go's text. */
export function renderTemplate(src: string, data: TemplateValue, onStep: () => void): string {
  return executeTemplate(parseTemplate(src), data, onStep);
}
