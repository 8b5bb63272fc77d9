/**
 * Executes a parsed text/template (strings-template.ts) the way OPA runs Go's text/template: the
 * variables object goes through a JSON round trip first (numbers become json.Number, a string
 * type — so `{{if .n}}` is true even for 0 — and sets become arrays), and `missingkey=error` makes
 * a missing map key an error.
 */
import { BuiltinError } from '../errors.js';
import { NumLit, RObject, RSet, toRegoText, type Value } from '../value.js';
import { formatFloat } from './sprintf-float.js';
import { goSprintf, type GoArg } from './sprintf-go.js';
import type { Arg, Pipe, TNode, Where } from './strings-template.js';

/** json.Number: a number kept as its JSON text. */
class JNum {
  constructor(readonly s: string) {}
}
/** An untyped constant from the template text. */
class Lit {
  constructor(
    readonly v: number,
    readonly isInt: boolean,
  ) {}
}
type GV = null | boolean | string | JNum | Lit | GV[] | Map<string, GV>;

function fromValue(v: Value): GV {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return new JNum(String(v));
  if (v instanceof NumLit) return new JNum(v.text);
  if (Array.isArray(v)) return v.map(fromValue);
  if (v instanceof RSet) return v.values().map(fromValue);
  const m = new Map<string, GV>();
  for (const [k, x] of (v as RObject).entries()) m.set(typeof k === 'string' ? k : toRegoText(k), fromValue(x));
  return m;
}

function goType(v: GV): string {
  if (v === null) return 'interface {}';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof JNum) return 'json.Number';
  if (v instanceof Lit) return v.isInt ? 'int' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

function sortedKeys(m: Map<string, GV>): string[] {
  return [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** fmt's %v of a value nested in a map or slice. */
function fmtV(v: GV): string {
  if (v === null) return '<nil>';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return v;
  if (v instanceof JNum) return v.s;
  if (v instanceof Lit) return v.isInt ? String(v.v) : formatFloat(v.v, 'g', -1);
  if (Array.isArray(v)) return `[${v.map(fmtV).join(' ')}]`;
  return `map[${sortedKeys(v)
    .map((k) => `${k}:${fmtV(v.get(k)!)}`)
    .join(' ')}]`;
}

function truth(v: GV): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof JNum) return v.s.length > 0;
  if (v instanceof Lit) return v.v !== 0;
  return Array.isArray(v) ? v.length > 0 : v.size > 0;
}

class ExecError extends BuiltinError {}
type ControlNode = Extract<TNode, { pipe: Pipe; list: TNode[] }>;
class Break {}
class Continue {}

const enc = new TextEncoder();
type Basic = 'bool' | 'int' | 'float' | 'string';

function basic(v: GV): Basic | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string' || v instanceof JNum) return 'string';
  if (v instanceof Lit) return v.isInt ? 'int' : 'float';
  return undefined;
}

function scalar(v: GV): boolean | number | string {
  if (v instanceof JNum) return v.s;
  if (v instanceof Lit) return v.v;
  return v as boolean | string;
}

function toGoArg(v: GV): GoArg {
  if (typeof v === 'string') return { t: 'string', v };
  if (v instanceof JNum) return { t: 'string', v: v.s };
  if (v instanceof Lit) return v.isInt ? { t: 'int', v: BigInt(v.v) } : { t: 'float', v: v.v };
  return { t: 'string', v: fmtV(v) };
}

/** fmt.Sprint: a space between operands when neither side is a string. */
function sprint(args: GV[]): string {
  let out = '';
  args.forEach((a, i) => {
    const isStr = typeof a === 'string' || a instanceof JNum;
    const prevStr = i > 0 && (typeof args[i - 1] === 'string' || args[i - 1] instanceof JNum);
    if (i > 0 && !isStr && !prevStr) out += ' ';
    out += fmtV(a);
  });
  return out;
}

const HTML_ESC: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&#39;',
  '"': '&#34;',
  '\0': '\uFFFD',
};
const JS_ESC: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
  '\n': '\\u000A',
  '\r': '\\u000D',
  '\t': '\\u0009',
};

class Exec {
  out = '';
  private readonly vars: [string, GV][] = [];
  private steps = 0;

  constructor(
    private readonly onStep: () => void,
    root: GV,
  ) {
    this.vars.push(['$', root]);
  }

  private fail(at: Where, msg: string): never {
    throw new ExecError(`template: template:${at.line}:${at.col}: executing "template" at <${at.text}>: ${msg}`);
  }

  private lookupVar(name: string, at: Where): GV {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]![0] === name) return this.vars[i]![1];
    return this.fail(at, `undefined variable: ${name}`);
  }

  private field(recv: GV, name: string, at: Where): GV {
    if (recv instanceof Map) {
      if (!recv.has(name)) this.fail(at, `map has no entry for key "${name}"`);
      return recv.get(name)!;
    }
    if (recv === null) this.fail(at, `nil pointer evaluating interface {}.${name}`);
    return this.fail(at, `can't evaluate field ${name} in type ${goType(recv)}`);
  }

  private chain(v: GV, chain: readonly string[], at: Where): GV {
    let cur = v;
    for (const name of chain) cur = this.field(cur, name, at);
    return cur;
  }

  private arg(a: Arg, dot: GV, at: Where): GV {
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
        return this.call(a.name, [], at);
    }
  }

  pipe(p: Pipe, dot: GV): GV {
    let value: GV | undefined;
    for (const cmd of p.cmds) {
      const head = cmd[0]!;
      if (head.t === 'fn') {
        const args = cmd.slice(1).map((a) => this.arg(a, dot, p.at));
        if (value !== undefined) args.push(value);
        value = this.call(head.name, args, p.at);
      } else {
        if (cmd.length > 1 || value !== undefined) this.fail(p.at, `can't give argument to non-function ${p.at.text}`);
        value = this.arg(head, dot, p.at);
      }
    }
    const result = value ?? null;
    if (p.decl.length === 1) this.setVar(p.decl[0]!, result, p.assign, p.at);
    return result;
  }

  private setVar(name: string, v: GV, assign: boolean, at: Where): void {
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

  private compare(name: string, a: GV, b: GV, at: Where): number {
    const ka = basic(a);
    const kb = basic(b);
    if (ka === undefined || kb === undefined) this.fail(at, `error calling ${name}: invalid type for comparison`);
    if (ka !== kb) this.fail(at, `error calling ${name}: incompatible types for comparison`);
    if (ka === 'bool' && name !== 'eq' && name !== 'ne')
      this.fail(at, `error calling ${name}: invalid type for comparison`);
    const x = scalar(a);
    const y = scalar(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  private call(name: string, args: GV[], at: Where): GV {
    const need = (n: number): void => {
      if (args.length !== n) this.fail(at, `wrong number of args for ${name}: want ${n} got ${args.length}`);
    };
    switch (name) {
      case 'and':
      case 'or': {
        if (args.length === 0) this.fail(at, `wrong number of args for ${name}: want at least 1 got 0`);
        for (const a of args) if (truth(a) !== (name === 'and')) return a;
        return args[args.length - 1]!;
      }
      case 'not':
        need(1);
        return !truth(args[0]!);
      case 'len': {
        need(1);
        const v = args[0]!;
        if (typeof v === 'string') return new Lit(enc.encode(v).length, true);
        if (v instanceof JNum) return new Lit(v.s.length, true);
        if (Array.isArray(v)) return new Lit(v.length, true);
        if (v instanceof Map) return new Lit(v.size, true);
        return this.fail(at, `error calling len: len of type ${goType(v)}`);
      }
      case 'index': {
        if (args.length === 0) this.fail(at, 'wrong number of args for index: want at least 1 got 0');
        let cur: GV = args[0]!;
        for (const k of args.slice(1)) {
          if (Array.isArray(cur)) {
            if (!(k instanceof Lit && k.isInt))
              this.fail(at, `error calling index: cannot index slice/array with type ${goType(k)}`);
            if (k.v < 0 || k.v >= cur.length) this.fail(at, `error calling index: index out of range: ${k.v}`);
            cur = cur[k.v]!;
          } else if (cur instanceof Map) {
            if (typeof k !== 'string')
              this.fail(at, `error calling index: value has type ${goType(k)}; should be string`);
            const next: GV | undefined = cur.get(k);
            cur = next === undefined ? null : next;
          } else if (cur === null) this.fail(at, 'error calling index: index of untyped nil');
          else this.fail(at, `error calling index: can't index item of type ${goType(cur)}`);
        }
        return cur;
      }
      case 'print':
        return sprint(args);
      case 'println':
        return `${args.map(fmtV).join(' ')}\n`;
      case 'printf': {
        if (args.length === 0 || !(typeof args[0] === 'string'))
          this.fail(at, 'error calling printf: format must be a string');
        return goSprintf(args[0] as string, args.slice(1).map(toGoArg));
      }
      case 'eq': {
        if (args.length < 2) this.fail(at, 'error calling eq: missing argument for comparison');
        return args.slice(1).some((b) => this.compare('eq', args[0]!, b, at) === 0);
      }
      case 'ne':
        need(2);
        return this.compare('ne', args[0]!, args[1]!, at) !== 0;
      case 'lt':
      case 'le':
      case 'gt':
      case 'ge': {
        need(2);
        const c = this.compare(name, args[0]!, args[1]!, at);
        return name === 'lt' ? c < 0 : name === 'le' ? c <= 0 : name === 'gt' ? c > 0 : c >= 0;
      }
      case 'html':
        return sprint(args).replace(/[<>&'"\0]/g, (c) => HTML_ESC[c]!);
      case 'js':
        return sprint(args).replace(/[\\'"<>&=\n\r\t]/g, (c) => JS_ESC[c]!);
      case 'urlquery':
        return encodeURIComponent(sprint(args))
          .replace(/%20/g, '+')
          .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      case 'slice': {
        const v = args[0] ?? null;
        const idx = args.slice(1).map((k) => {
          if (!(k instanceof Lit && k.isInt))
            this.fail(at, `error calling slice: cannot index slice/array with type ${goType(k)}`);
          return k.v;
        });
        if (typeof v === 'string') return v.slice(idx[0] ?? 0, idx[1] ?? v.length);
        if (Array.isArray(v)) return v.slice(idx[0] ?? 0, idx[1] ?? v.length);
        return this.fail(at, `error calling slice: can't slice item of type ${goType(v)}`);
      }
      default:
        return this.fail(at, `function "${name}" not defined`);
    }
  }

  private print(v: GV): void {
    this.out += v === null ? '<no value>' : fmtV(v);
  }

  run(list: readonly TNode[], dot: GV): void {
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

  private range(n: ControlNode, dot: GV): void {
    const mark = this.vars.length;
    const decl = n.pipe.decl;
    const v = this.pipe({ ...n.pipe, decl: [] }, dot);
    let entries: [GV, GV][];
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

/** Runs the template over the variables object. */
export function executeTemplate(list: readonly TNode[], vars: RObject, onStep: () => void): string {
  const root = fromValue(vars);
  const ex = new Exec(onStep, root);
  ex.run(list, root);
  return ex.out;
}
