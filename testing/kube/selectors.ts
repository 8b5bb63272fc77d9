/**
 * Label selectors (the full grammar of k8s.io/apimachinery/pkg/labels: =, ==, !=, in, notin, exists,
 * !exists, >, <) and field selectors (=, ==, != joined by commas, with backslash escapes).
 */
import { badRequest } from './status-errors.js';
import { labelValueErrors, qualifiedNameErrors } from './validation/names.js';

type Op = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export type LabelSelector = Requirement[];

class Lexer {
  pos = 0;
  constructor(readonly src: string) {}

  skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  peek(): string {
    this.skipSpace();
    return this.src[this.pos] ?? '';
  }

  /** An identifier: everything up to whitespace or a special character. */
  ident(): string {
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.src.length && !/[\s,=!()<>]/.test(this.src[this.pos]!)) this.pos++;
    return this.src.slice(start, this.pos);
  }

  eat(s: string): boolean {
    this.skipSpace();
    if (this.src.startsWith(s, this.pos)) {
      this.pos += s.length;
      return true;
    }
    return false;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.src.length;
  }
}

function fail(msg: string): never {
  throw badRequest(`unable to parse requirement: ${msg}`);
}

/** Parses a label selector string; '' selects everything. Throws 400 BadRequest on bad input. */
export function parseLabelSelector(src: string): LabelSelector {
  const lx = new Lexer(src);
  const reqs: Requirement[] = [];
  if (lx.atEnd()) return reqs;
  for (;;) {
    reqs.push(parseRequirement(lx));
    if (lx.atEnd()) break;
    if (!lx.eat(',')) fail(`found '${lx.peek()}', expected: ',' or 'end of string'`);
  }
  return reqs;
}

function parseRequirement(lx: Lexer): Requirement {
  if (lx.eat('!')) {
    const key = lx.ident();
    checkKey(key);
    return { key, op: '!', values: [] };
  }
  const key = lx.ident();
  if (!key) fail(`found '${lx.peek()}', expected: !, identifier, or 'end of string'`);
  checkKey(key);
  const next = lx.peek();
  if (next === '' || next === ',') return { key, op: 'exists', values: [] };
  let op: Op;
  if (lx.eat('==') || lx.eat('=')) op = '=';
  else if (lx.eat('!=')) op = '!=';
  else if (lx.eat('>')) op = 'gt';
  else if (lx.eat('<')) op = 'lt';
  else {
    const word = lx.ident();
    if (word === 'in') op = 'in';
    else if (word === 'notin') op = 'notin';
    else fail(`found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
  }
  let values: string[];
  if (op === 'in' || op === 'notin') {
    if (!lx.eat('(')) fail(`found '${lx.peek()}', expected: '('`);
    values = [];
    if (!lx.eat(')')) {
      for (;;) {
        values.push(lx.ident());
        if (lx.eat(')')) break;
        if (!lx.eat(',')) fail(`found '${lx.peek()}', expected: ',' or ')'`);
      }
    }
  } else {
    values = [lx.ident()];
  }
  for (const v of values) checkValue(key, v, op);
  return { key, op, values };
}

function checkKey(key: string): void {
  const errs = qualifiedNameErrors(key);
  if (errs.length) fail(`key: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}`);
}

function checkValue(key: string, v: string, op: Op): void {
  if (op === 'gt' || op === 'lt') {
    if (!/^-?\d+$/.test(v)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
    return;
  }
  const errs = labelValueErrors(v);
  if (errs.length) fail(`values[0][${key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
}

export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels![r.key]! : '';
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case '=':
        if (!has || v !== r.values[0]) return false;
        break;
      case '!=':
        if (has && v === r.values[0]) return false;
        break;
      case 'in':
        if (!has || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (has && r.values.includes(v)) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v)) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/** A selector from the structured form (`spec.selector` of Deployments, PDBs, ...). */
export function fromLabelSelectorObject(sel: {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}): LabelSelector {
  const reqs: Requirement[] = [];
  for (const [key, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key, op: '=', values: [v] });
  for (const e of sel.matchExpressions ?? []) {
    const op: Op =
      e.operator === 'In' ? 'in' : e.operator === 'NotIn' ? 'notin' : e.operator === 'Exists' ? 'exists' : '!';
    reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  return reqs;
}

export function labelSelectorString(sel: LabelSelector): string {
  return sel
    .map((r) => {
      switch (r.op) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case '=':
          return `${r.key}=${r.values[0]}`;
        case '!=':
          return `${r.key}!=${r.values[0]}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.op} (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.values[0]}`;
        case 'lt':
          return `${r.key}<${r.values[0]}`;
      }
    })
    .join(',');
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Parses a field selector (`metadata.name=x,status.phase!=Running`). Throws 400 on bad syntax. */
export function parseFieldSelector(src: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (src.trim() === '') return out;
  for (const part of splitUnescaped(src, ',')) {
    const m = /^(.*?)(==|!=|=)(.*)$/s.exec(unescapeOps(part));
    if (!m || m[1] === '') throw badRequest(`invalid selector: '${src}'; can't understand '${part}'`);
    out.push({ field: m[1]!.trim(), op: m[2] === '!=' ? '!=' : '=', value: unescapeValue(m[3]!) });
  }
  return out;
}

function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === sep) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

/** Keeps escaped operator characters from being read as operators (they are restored by unescapeValue). */
function unescapeOps(s: string): string {
  return s.replace(/\\=/g, '\u0000').replace(/\\!/g, '\u0001');
}

function unescapeValue(s: string): string {
  return s
    .replace(/\u0000/g, '=')
    .replace(/\u0001/g, '!')
    .replace(/\\(.)/g, '$1');
}

export function matchesFields(reqs: FieldRequirement[], get: (field: string) => string | undefined): boolean {
  for (const r of reqs) {
    const v = get(r.field) ?? '';
    if (r.op === '=' ? v !== r.value : v === r.value) return false;
  }
  return true;
}
