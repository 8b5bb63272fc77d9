/**
 * The functions text/template predefines (and, or, not, len, index, print, printf, println, eq, ne,
 * lt, le, gt, ge, html, js, urlquery, slice), with Go's results and error texts.
 */
import { goSprintf } from '../gofmt/index.js';
import { JSONNumber, Lit, basic, fmtV, goType, scalar, sprint, toGoArg, truth, type TemplateValue } from './data.js';

/** Reports an execution error at the current action (never returns). */
export type Fail = (msg: string) => never;

const enc = new TextEncoder();

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

function compare(name: string, a: TemplateValue, b: TemplateValue, fail: Fail): number {
  const ka = basic(a);
  const kb = basic(b);
  if (ka === undefined || kb === undefined) fail(`error calling ${name}: invalid type for comparison`);
  if (ka !== kb) fail(`error calling ${name}: incompatible types for comparison`);
  if (ka === 'bool' && name !== 'eq' && name !== 'ne') fail(`error calling ${name}: invalid type for comparison`);
  const x = scalar(a);
  const y = scalar(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Calls the predefined function `name`. */
export function callFunction(name: string, args: TemplateValue[], fail: Fail): TemplateValue {
  const need = (n: number): void => {
    if (args.length !== n) fail(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  };
  switch (name) {
    case 'and':
    case 'or': {
      if (args.length === 0) fail(`wrong number of args for ${name}: want at least 1 got 0`);
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
      if (v instanceof JSONNumber) return new Lit(v.s.length, true);
      if (Array.isArray(v)) return new Lit(v.length, true);
      if (v instanceof Map) return new Lit(v.size, true);
      return fail(`error calling len: len of type ${goType(v)}`);
    }
    case 'index': {
      if (args.length === 0) fail('wrong number of args for index: want at least 1 got 0');
      let cur: TemplateValue = args[0]!;
      for (const k of args.slice(1)) {
        if (Array.isArray(cur)) {
          if (!(k instanceof Lit && k.isInt))
            fail(`error calling index: cannot index slice/array with type ${goType(k)}`);
          if (k.v < 0 || k.v >= cur.length) fail(`error calling index: index out of range: ${k.v}`);
          cur = cur[k.v]!;
        } else if (cur instanceof Map) {
          if (typeof k !== 'string') fail(`error calling index: value has type ${goType(k)}; should be string`);
          const next: TemplateValue | undefined = cur.get(k);
          cur = next === undefined ? null : next;
        } else if (cur === null) fail('error calling index: index of untyped nil');
        else fail(`error calling index: can't index item of type ${goType(cur)}`);
      }
      return cur;
    }
    case 'print':
      return sprint(args);
    case 'println':
      return `${args.map(fmtV).join(' ')}\n`;
    case 'printf': {
      if (args.length === 0 || !(typeof args[0] === 'string')) fail('error calling printf: format must be a string');
      return goSprintf(args[0] as string, args.slice(1).map(toGoArg));
    }
    case 'eq': {
      if (args.length < 2) fail('error calling eq: missing argument for comparison');
      return args.slice(1).some((b) => compare('eq', args[0]!, b, fail) === 0);
    }
    case 'ne':
      need(2);
      return compare('ne', args[0]!, args[1]!, fail) !== 0;
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      need(2);
      const c = compare(name, args[0]!, args[1]!, fail);
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
          fail(`error calling slice: cannot index slice/array with type ${goType(k)}`);
        return k.v;
      });
      if (typeof v === 'string') return v.slice(idx[0] ?? 0, idx[1] ?? v.length);
      if (Array.isArray(v)) return v.slice(idx[0] ?? 0, idx[1] ?? v.length);
      return fail(`error calling slice: can't slice item of type ${goType(v)}`);
    }
    default:
      return fail(`function "${name}" not defined`);
  }
}
