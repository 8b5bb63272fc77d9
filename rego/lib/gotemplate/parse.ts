/**
 * A subset of Go's text/template (as OPA's strings.render_template uses it), parsed here and
 * executed by exec.ts. Supported: text; actions `{{pipeline}}` with `{{-`/`-}}` trimming and
 * `{{/* comments *\/}}`; `if`/`else if`/`else`, `range` (with `$i, $v :=`, `else`, `break`,
 * `continue`), `with`/`else`; variables (`$x := …`, `$x = …`, `$`); fields (`.a.b`, `$x.a`);
 * literals (strings, raw strings, numbers, true, false, nil); pipes `|`; parenthesised pipelines;
 * the functions and, or, not, len, index, print, printf, println, eq, ne, lt, le, gt, ge, html,
 * js, urlquery, slice. Not supported: define, template, block (a parse error says so).
 */
import { TemplateError } from './data.js';

export type Arg =
  | { readonly t: 'dot' }
  | { readonly t: 'field'; readonly chain: readonly string[]; readonly at: Where } // .a.b
  | { readonly t: 'var'; readonly name: string; readonly chain: readonly string[]; readonly at: Where } // $x.a
  | { readonly t: 'fn'; readonly name: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'num'; readonly v: number; readonly int: boolean }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'nil' }
  | { readonly t: 'pipe'; readonly pipe: Pipe; readonly chain: readonly string[] };

/** Where a node is, for Go's `template:LINE:COL: executing "template" at <NODE>` errors. */
export interface Where {
  readonly line: number;
  readonly col: number;
  readonly text: string;
}

export interface Pipe {
  readonly decl: readonly string[];
  readonly assign: boolean; // `=` rather than `:=`
  readonly cmds: readonly (readonly Arg[])[];
  readonly at: Where;
}

export type TNode =
  | { readonly t: 'text'; readonly s: string }
  | { readonly t: 'action'; readonly pipe: Pipe }
  | {
      readonly t: 'if' | 'with' | 'range';
      readonly pipe: Pipe;
      readonly list: TNode[];
      readonly elseList: TNode[] | undefined;
    }
  | { readonly t: 'break' | 'continue' };

export const FUNCS = new Set([
  'and',
  'or',
  'not',
  'len',
  'index',
  'print',
  'printf',
  'println',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'html',
  'js',
  'urlquery',
  'slice',
]);

class ParseError extends TemplateError {}

const MAX_NESTING = 200;

interface Action {
  readonly body: string;
  readonly pos: number; // offset of body in the template
  readonly line: number;
}

type Item = { readonly text: string } | { readonly action: Action };

const TRIM_WS = /[ \t\r\n]+$/;
const LEAD_WS = /^[ \t\r\n]+/;

/** Splits the template into text and action bodies, applying `{{-` and `-}}` trimming. */
function scan(src: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNext = false;
  const lineAt = (pos: number): number => src.slice(0, pos).split('\n').length;
  while (i <= src.length) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(LEAD_WS, '');
    if (open < 0) {
      if (text !== '') items.push({ text });
      break;
    }
    let start = open + 2;
    if (
      src.startsWith('- ', start) ||
      src.startsWith('-\t', start) ||
      src.startsWith('-\n', start) ||
      src.startsWith('-\r', start)
    ) {
      text = text.replace(TRIM_WS, '');
      start += 1;
    }
    if (text !== '') items.push({ text });
    const close = findClose(src, start);
    if (close < 0) throw new ParseError(`template: template:${lineAt(open)}: unclosed action`);
    let end = close;
    trimNext = false;
    if (close - start >= 2 && src[close - 1] === '-' && /[ \t\r\n]/.test(src[close - 2]!)) {
      end = close - 1;
      trimNext = true;
    }
    const body = src.slice(start, end);
    const trimmed = body.trim();
    if (!(trimmed.startsWith('/*') && trimmed.endsWith('*/')))
      items.push({ action: { body, pos: start, line: lineAt(start) } });
    i = close + 2;
  }
  return items;
}

/** Index of the `}}` closing an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length - 1; i++) {
    const c = src[i];
    if (c === '"' || c === '`' || c === "'") {
      const q = c;
      for (i++; i < src.length && src[i] !== q; i++) if (q !== '`' && src[i] === '\\') i++;
      continue;
    }
    if (c === '}' && src[i + 1] === '}') return i;
  }
  return -1;
}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|('(?:[^'\\]|\\.)+')|(:=|=|\||\(|\)|,)|(\$[\p{L}\p{N}_]*)|((?:\.[\p{L}\p{N}_]+)+|\.)|([+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?))|([\p{L}_][\p{L}\p{N}_]*))/uy;

type Tok = { kind: 'str' | 'raw' | 'char' | 'punct' | 'var' | 'field' | 'num' | 'ident'; v: string; pos: number };

function tokenize(a: Action): Tok[] {
  const toks: Tok[] = [];
  TOKEN.lastIndex = 0;
  const src = a.body;
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (m === null) {
      const bad = src.slice(at).trim()[0] ?? '';
      throw new ParseError(`template: template:${a.line}: unexpected ${JSON.stringify(bad)} in command`);
    }
    const kinds = ['str', 'raw', 'char', 'punct', 'var', 'field', 'num', 'ident'] as const;
    for (let k = 0; k < kinds.length; k++) {
      const v = m[k + 1];
      if (v !== undefined) {
        toks.push({ kind: kinds[k]!, v, pos: a.pos + m.index + m[0].length - v.length });
        break;
      }
    }
  }
  return toks;
}

function unquote(tok: Tok): string {
  if (tok.kind === 'raw') return tok.v.slice(1, -1);
  // Go's escapes are a superset of JSON's in practice; \x and \' are mapped first.
  const body = tok.v
    .slice(1, -1)
    .replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\'/g, "'")
    .replace(/\\a/g, '\x07')
    .replace(/\\v/g, '\x0b')
    .replace(/\\U([0-9a-fA-F]{8})/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)));
  try {
    return JSON.parse(`"${body.replace(/"/g, '\\"').replace(/\\\\"/g, '\\"')}"`) as string;
  } catch {
    return body;
  }
}

class PipeParser {
  private i = 0;
  private parens = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly a: Action,
    private readonly src: string,
  ) {}

  skip(n = 1): void {
    this.i += n;
  }

  /** Go's ErrorContext: 1-based line, 0-based byte column of offset pos. */
  where(pos: number, text: string): Where {
    const before = this.src.slice(0, pos);
    const nl = before.lastIndexOf('\n');
    return { line: before.split('\n').length, col: new TextEncoder().encode(before.slice(nl + 1)).length, text };
  }

  private err(msg: string): never {
    throw new ParseError(`template: template:${this.a.line}: ${msg}`);
  }

  get done(): boolean {
    return this.i >= this.toks.length;
  }

  peek(): Tok | undefined {
    return this.toks[this.i];
  }

  pipeline(allowDecl: boolean, stopAt?: string): Pipe {
    const start = this.peek()?.pos ?? this.a.pos;
    const decl: string[] = [];
    let assign = false;
    if (allowDecl && this.peek()?.kind === 'var') {
      const save = this.i;
      const names = [this.toks[this.i++]!.v];
      if (this.peek()?.v === ',' && this.toks[this.i + 1]?.kind === 'var') {
        this.i++;
        names.push(this.toks[this.i++]!.v);
      }
      const op = this.peek();
      if (op?.kind === 'punct' && (op.v === ':=' || op.v === '=')) {
        this.i++;
        decl.push(...names);
        assign = op.v === '=';
      } else this.i = save;
    }
    const cmds: Arg[][] = [];
    for (;;) {
      const cmd: Arg[] = [];
      while (!this.done && this.peek()!.v !== '|' && this.peek()!.v !== stopAt) cmd.push(this.operand());
      if (cmd.length === 0) this.err(cmds.length === 0 ? 'missing value for command' : 'missing command');
      cmds.push(cmd);
      if (this.peek()?.v !== '|') break;
      this.i++;
    }
    const endPos = this.peek()?.pos ?? this.a.pos + this.a.body.length;
    const text = this.a.body.slice(start - this.a.pos, endPos - this.a.pos).trim();
    return { decl, assign, cmds, at: this.where(start, text) };
  }

  private chainAfter(): string[] {
    const next = this.peek();
    if (
      next?.kind === 'field' &&
      next.v !== '.' &&
      next.pos === this.toks[this.i - 1]!.pos + this.toks[this.i - 1]!.v.length
    ) {
      this.i++;
      return next.v.slice(1).split('.');
    }
    return [];
  }

  private operand(): Arg {
    const tok = this.toks[this.i++]!;
    switch (tok.kind) {
      case 'str':
      case 'raw':
        return { t: 'str', v: unquote(tok) };
      case 'char':
        return { t: 'num', v: unquote({ ...tok, v: `"${tok.v.slice(1, -1)}"` }).codePointAt(0)!, int: true };
      case 'num': {
        const clean = tok.v.replace(/_/g, '');
        const v = Number(clean);
        if (Number.isNaN(v)) this.err(`bad number syntax: ${JSON.stringify(tok.v)}`);
        return { t: 'num', v, int: /^[+-]?(0[xX][0-9a-fA-F]+|\d+)$/.test(clean) };
      }
      case 'field':
        return tok.v === '.'
          ? { t: 'dot' }
          : { t: 'field', chain: tok.v.slice(1).split('.'), at: this.where(tok.pos, tok.v) };
      case 'var': {
        const chain = this.chainAfter();
        const text = chain.length > 0 ? `${tok.v}.${chain.join('.')}` : tok.v;
        return { t: 'var', name: tok.v, chain, at: this.where(tok.pos, text) };
      }
      case 'ident':
        if (tok.v === 'true' || tok.v === 'false') return { t: 'bool', v: tok.v === 'true' };
        if (tok.v === 'nil') return { t: 'nil' };
        if (!FUNCS.has(tok.v)) this.err(`function ${JSON.stringify(tok.v)} not defined`);
        return { t: 'fn', name: tok.v };
      case 'punct':
        if (tok.v === '(') {
          if (++this.parens > MAX_NESTING) this.err(`parenthesized pipelines nested deeper than ${MAX_NESTING} levels`);
          const pipe = this.pipeline(true, ')');
          this.parens--;
          if (this.peek()?.v !== ')') this.err('unclosed left paren');
          this.i++;
          return { t: 'pipe', pipe, chain: this.chainAfter() };
        }
        return this.err(`unexpected ${JSON.stringify(tok.v)} in operand`);
    }
  }
}

/** Parses the template into a node list. */
export function parseTemplate(src: string): TNode[] {
  const items = scan(src);
  let k = 0;
  const parseList = (stop: ReadonlySet<string>): { list: TNode[]; end: string; rest: PipeParser | undefined } => {
    const list: TNode[] = [];
    while (k < items.length) {
      const item = items[k++]!;
      if ('text' in item) {
        list.push({ t: 'text', s: item.text });
        continue;
      }
      const toks = tokenize(item.action);
      const p = new PipeParser(toks, item.action, src);
      const first = toks[0];
      const kw = first?.kind === 'ident' && !FUNCS.has(first.v) ? first.v : undefined;
      if (first === undefined)
        throw new ParseError(`template: template:${item.action.line}: missing value for command`);
      if (kw === 'end' || kw === 'else') {
        if (!stop.has(kw)) throw new ParseError(`template: template:${item.action.line}: unexpected {{${kw}}}`);
        p.skip();
        return { list, end: kw, rest: p };
      }
      if (kw === 'if' || kw === 'with' || kw === 'range') {
        p.skip();
        list.push(parseControl(kw, p));
        continue;
      }
      if (kw === 'break' || kw === 'continue') {
        list.push({ t: kw });
        continue;
      }
      if (kw === 'define' || kw === 'template' || kw === 'block') {
        throw new ParseError(
          `template: template:${item.action.line}: {{${kw}}} is not supported by strings.render_template`,
        );
      }
      list.push({ t: 'action', pipe: p.pipeline(true) });
    }
    if (stop.size > 0) throw new ParseError(`template: template:${src.split('\n').length}: unexpected EOF`);
    return { list, end: '', rest: undefined };
  };
  let depth = 0;
  const parseControl = (kw: 'if' | 'with' | 'range', p: PipeParser): TNode => {
    // NB: Go's parser recurses without limit; refuse absurd nesting rather than overflow the stack.
    if (++depth > MAX_NESTING)
      throw new ParseError(`template: template: control structures nested deeper than ${MAX_NESTING} levels`);
    const pipe = p.pipeline(true);
    const body = parseList(new Set(['end', 'else']));
    let elseList: TNode[] | undefined;
    if (body.end === 'else') {
      const rest = body.rest!;
      if (!rest.done && kw !== 'range' && rest.peek()?.v === kw) {
        // `else if …` / `else with …` nests a control node that shares this one's `end`.
        rest.skip();
        elseList = [parseControl(kw, rest)];
      } else {
        const tail = parseList(new Set(['end']));
        elseList = tail.list;
      }
    }
    depth--;
    return { t: kw, pipe, list: body.list, elseList };
  };
  return parseList(new Set()).list;
}
