/**
 * Grading one OPA conformance case exactly as OPA's harness does (`testRun` in
 * v1/topdown/exported_test.go): modules named test-N.rego, input_term parsed as Rego, results
 * compared as a set of bindings, errors by substring and code.
 */
import { compile, type PreparedPolicy } from '../engine.js';
import { RegoCompileError, RegoError, RegoEvalError, RegoLimitError } from '../errors.js';
import { RObject, RSet, compare, keyOf, toJSONText, toRegoText, type Value } from '../value.js';

export interface OpaCase {
  note: string;
  query: string;
  modules?: string[];
  data?: Value;
  input?: Value;
  input_term?: string;
  want_result?: Value[];
  want_error?: string;
  want_error_code?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
  ignore_generated_vars?: boolean;
  experimental_keywords?: boolean;
}

export interface Outcome {
  pass: boolean;
  detail?: string;
}

/** Per-case budget: nothing in the corpus needs more; a runaway case fails instead of hanging. */
export const CASE_DEADLINE_MS = 5_000;

/** OPA's JSON form of a result value: sets become sorted arrays, non-string keys become Rego text. */
function jsonish(v: Value): Value {
  if (v instanceof RSet) return v.values().map(jsonish);
  if (Array.isArray(v)) return v.map(jsonish);
  if (v instanceof RObject) {
    const o = new RObject();
    for (const [k, x] of v.entries()) o.set(typeof k === 'string' ? k : toJSONText(k), jsonish(x));
    return o;
  }
  return v;
}

function sortArrays(b: RObject): RObject {
  const o = new RObject();
  for (const [k, v] of b.entries()) o.set(k, Array.isArray(v) ? [...v].sort(compare) : v);
  return o;
}

function normalize(bindings: Value[], c: OpaCase): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const b of bindings) {
    if (!(b instanceof RObject)) continue;
    let o = new RObject();
    for (const [k, v] of b.entries()) {
      if (c.ignore_generated_vars && typeof k === 'string' && k.startsWith('__localq')) continue;
      o.set(k, jsonish(v));
    }
    if (c.sort_bindings) o = sortArrays(o);
    out.set(keyOf(o), o);
  }
  return out;
}

function parseInputTerm(term: string): Value {
  const p = compile([]);
  const rs = p.query(`__input_term__ = ${term}`);
  const v = rs[0]?.__input_term__;
  if (v === undefined) throw new Error(`input_term did not evaluate: ${term}`);
  return v;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

export function gradeCase(c: OpaCase, regoVersion: 'v0' | 'v1'): Outcome {
  let policy: PreparedPolicy;
  try {
    // NB: the flag is always passed: the engine accepts experimental keywords by default, OPA only with the flag.
    policy = compile(
      (c.modules ?? []).map((source, i) => ({ name: `test-${i}.rego`, source, regoVersion })),
      { data: c.data ?? new RObject(), experimentalKeywords: c.experimental_keywords === true },
    );
  } catch (e) {
    if (e instanceof RegoCompileError) return expectError(c, e, e.code);
    return { pass: false, detail: `compile crashed: ${errorText(e)}` };
  }
  let results: Value[];
  try {
    const input = c.input_term !== undefined ? parseInputTerm(c.input_term) : c.input;
    const bindings = policy.query(c.query, {
      ...(input !== undefined ? { input } : {}),
      strict: c.strict_error === true,
      deadlineMs: CASE_DEADLINE_MS,
      regoVersion,
    });
    results = bindings.map((b) => RObject.from(Object.entries(b)));
  } catch (e) {
    if (e instanceof RegoLimitError) return { pass: false, detail: `limit: ${e.message}` };
    if (e instanceof RegoEvalError || e instanceof RegoError) return expectError(c, e, e.code);
    return {
      pass: false,
      detail: `crash: ${errorText(e)}${e instanceof Error && e.stack ? `\n${e.stack.split('\n').slice(1, 4).join('\n')}` : ''}`,
    };
  }
  if (c.want_error !== undefined || c.want_error_code !== undefined) {
    return {
      pass: false,
      detail: `expected error ${c.want_error_code ?? ''} ${c.want_error ?? ''}, got ${results.length} result(s)`,
    };
  }
  const want = normalize(c.want_result ?? [], c);
  const got = normalize(results, c);
  if (want.size === got.size && [...want.keys()].every((k) => got.has(k))) return { pass: true };
  const show = (m: Map<string, Value>) => [...m.values()].map(toRegoText).join(' | ');
  return { pass: false, detail: `want: ${show(want)}\n got: ${show(got)}` };
}

function expectError(c: OpaCase, e: Error, code: string): Outcome {
  if (c.want_error === undefined && c.want_error_code === undefined)
    return { pass: false, detail: `unexpected error: ${e.message}` };
  if (c.want_error_code !== undefined && c.want_error_code !== code) {
    return { pass: false, detail: `want code ${c.want_error_code}, got ${code}: ${e.message}` };
  }
  if (c.want_error !== undefined && !e.message.includes(c.want_error)) {
    return { pass: false, detail: `want error containing ${JSON.stringify(c.want_error)}, got: ${e.message}` };
  }
  return { pass: true };
}
