/**
 * The values a template runs on, as Go's text/template sees OPA's variables after their JSON round
 * trip: json.Number for numbers (a string type, so `{{if .n}}` is true even for 0), strings, bools,
 * nil, slices and string-keyed maps; and untyped constants written in the template. fmt's view of
 * them (%v, truth, comparison kinds) is here too.
 */
import { formatFloat, type GoArg } from '../gofmt/index.js';

/** A template failure (parse or execution), with text/template's message. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** json.Number: a number kept as its JSON text. */
export class JSONNumber {
  constructor(readonly s: string) {}
}
/** An untyped constant from the template text. */
export class Lit {
  constructor(
    readonly v: number,
    readonly isInt: boolean,
  ) {}
}
export type TemplateValue = null | boolean | string | JSONNumber | Lit | TemplateValue[] | Map<string, TemplateValue>;

export function goType(v: TemplateValue): string {
  if (v === null) return 'interface {}';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof JSONNumber) return 'json.Number';
  if (v instanceof Lit) return v.isInt ? 'int' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

export function sortedKeys(m: Map<string, TemplateValue>): string[] {
  return [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** fmt's %v of a value nested in a map or slice. */
export function fmtV(v: TemplateValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return v;
  if (v instanceof JSONNumber) return v.s;
  if (v instanceof Lit) return v.isInt ? String(v.v) : formatFloat(v.v, 'g', -1);
  if (Array.isArray(v)) return `[${v.map(fmtV).join(' ')}]`;
  return `map[${sortedKeys(v)
    .map((k) => `${k}:${fmtV(v.get(k)!)}`)
    .join(' ')}]`;
}

export function truth(v: TemplateValue): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof JSONNumber) return v.s.length > 0;
  if (v instanceof Lit) return v.v !== 0;
  return Array.isArray(v) ? v.length > 0 : v.size > 0;
}

export type Basic = 'bool' | 'int' | 'float' | 'string';

export function basic(v: TemplateValue): Basic | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string' || v instanceof JSONNumber) return 'string';
  if (v instanceof Lit) return v.isInt ? 'int' : 'float';
  return undefined;
}

export function scalar(v: TemplateValue): boolean | number | string {
  if (v instanceof JSONNumber) return v.s;
  if (v instanceof Lit) return v.v;
  return v as boolean | string;
}

export function toGoArg(v: TemplateValue): GoArg {
  if (typeof v === 'string') return { t: 'string', v };
  if (v instanceof JSONNumber) return { t: 'string', v: v.s };
  if (v instanceof Lit) return v.isInt ? { t: 'int', v: BigInt(v.v) } : { t: 'float', v: v.v };
  return { t: 'string', v: fmtV(v) };
}

/** fmt.Sprint: a space between operands when neither side is a string. */
export function sprint(args: TemplateValue[]): string {
  let out = '';
  args.forEach((a, i) => {
    const isStr = typeof a === 'string' || a instanceof JSONNumber;
    const prevStr = i > 0 && (typeof args[i - 1] === 'string' || args[i - 1] instanceof JSONNumber);
    if (i > 0 && !isStr && !prevStr) out += ' ';
    out += fmtV(a);
  });
  return out;
}
