/**
 * Runtime and plumbing builtins: opa.runtime, trace, print (compiled to internal.print), template
 * strings (compiled to internal.template_string), `in` (internal.member_2/3) and rego.metadata.*
 * (replaced by constants at compile time; declared here for arity and type checks).
 */
import { BuiltinError, RegoParseError } from '../../errors.js';
import { moduleJSON } from '../../syntax/ast-json.js';
import { parseModule } from '../../syntax/module.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, equal, toRegoText, type Value } from '../../value.js';
import { arr, str } from '../args.js';
import type { BuiltinRegistry } from '../registry.js';

const decls = {
  runtime: { name: 'opa.runtime', args: [], result: T.object(T.string, T.any), nondeterministic: true },
  trace: { name: 'trace', args: [T.string], result: T.boolean },
  print: { name: 'print', args: [], variadic: T.any, result: T.boolean },
  internalPrint: { name: 'internal.print', args: [T.array(T.any)], result: T.boolean, internal: true },
  template: { name: 'internal.template_string', args: [T.array(T.any)], result: T.string, internal: true },
  member2: { name: 'internal.member_2', args: [T.any, T.any], result: T.boolean, infix: 'in', internal: true },
  member3: { name: 'internal.member_3', args: [T.any, T.any, T.any], result: T.boolean, infix: 'in', internal: true },
  metaRule: { name: 'rego.metadata.rule', args: [], result: T.any },
  metaChain: { name: 'rego.metadata.chain', args: [], result: T.array(T.any) },
  parseModule: { name: 'rego.parse_module', args: [T.string, T.string], result: T.object(T.string, T.any) },
} as const;

/** Text of a value inside print/template output: strings raw, everything else as Rego text. */
function show(v: Value): string {
  return typeof v === 'string' ? v : toRegoText(v);
}

function member2(x: Value, c: Value): boolean {
  if (Array.isArray(c)) return c.some((e) => equal(e, x));
  if (c instanceof RSet) return c.has(x);
  if (c instanceof RObject) return c.values().some((e) => equal(e, x));
  return false;
}

function member3(k: Value, x: Value, c: Value): boolean {
  if (Array.isArray(c)) {
    return typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < c.length && equal(c[k]!, x);
  }
  if (c instanceof RObject) {
    const v = c.get(k);
    return v !== undefined && equal(v, x);
  }
  if (c instanceof RSet) return equal(k, x) && c.has(x);
  return false;
}

function printLines(parts: readonly Value[]): string[] {
  const out: string[] = [];
  const buf: string[] = new Array(parts.length);
  const rec = (i: number): void => {
    if (i === parts.length) {
      out.push(buf.join(' '));
      return;
    }
    const p = parts[i]!;
    if (!(p instanceof RSet)) {
      if (p !== null && typeof p === 'object' && !(p instanceof NumLit))
        throw new BuiltinError(`illegal argument type: ${Array.isArray(p) ? 'array' : 'object'}`);
      buf[i] = show(p);
      rec(i + 1);
      return;
    }
    if (p.size === 0) {
      buf[i] = '<undefined>';
      rec(i + 1);
      return;
    }
    for (const x of p.values()) {
      buf[i] = show(x);
      rec(i + 1);
    }
  };
  rec(0);
  return out;
}

function templateString(parts: readonly Value[]): string {
  let s = '';
  for (const p of parts) {
    if (p instanceof RSet) {
      if (p.size === 0) s += '<undefined>';
      else if (p.size === 1) s += show(p.values()[0]!);
      else throw new BuiltinError('template-strings must not produce multiple outputs');
    } else if (p !== null && typeof p === 'object' && !(p instanceof NumLit)) {
      throw new BuiltinError(`illegal argument type: ${Array.isArray(p) ? 'array' : 'object'}`);
    } else s += show(p);
  }
  return s;
}

export function register(r: BuiltinRegistry): void {
  r.add(decls.runtime, (_a, ctx) => ctx.runtime ?? new RObject());
  r.add(decls.trace, (a) => {
    str(a, 0);
    return true;
  });
  r.add(decls.print, () => true);
  r.add(decls.internalPrint, (a, ctx) => {
    for (const line of printLines(arr(a, 0))) ctx.print?.(line);
    return true;
  });
  r.add(decls.template, (a) => templateString(arr(a, 0)));
  r.add(decls.member2, (a) => member2(a[0]!, a[1]!));
  r.add(decls.member3, (a) => member3(a[0]!, a[1]!, a[2]!));
  // Replaced by constants during compilation (the compiler knows the calling rule).
  r.add(decls.metaRule, () => new RObject());
  r.add(decls.metaChain, () => []);
  r.add(decls.parseModule, (a) => {
    const file = str(a, 0);
    const source = str(a, 1);
    try {
      return moduleJSON(parseModule(file, source));
    } catch (e) {
      if (e instanceof RegoParseError) throw new BuiltinError(e.message);
      throw e;
    }
  });
}
