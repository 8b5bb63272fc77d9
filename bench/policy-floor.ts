/**
 * The gateway benchmark's "floor" server (bench/gateway-server.ts, mode `floor`): what a pre-check would cost if
 * evaluating the built-in pack cost nothing beyond the builtin calls it makes. The pack is evaluated once, at
 * start, on the benchmark's query with every builtin call recorded (implementation, arguments, result, site); each
 * request then makes the same calls with the request's own text in place of that query, in the same order,
 * and answers what the engine answered, with no Rego evaluation around them. A call whose result differs from
 * the recording (another query) sends the request to the engine, so answers are always the engine's. NB: for the
 * pre-check route's input, recorded and replayed with surface `pre-check` (of that input the pack reads only the
 * query and the surface); any other surface, or an input with `mcp` or `llm`, goes to the engine.
 *
 * A measurement device, not a product path: it tells how far the engine is from the work its policies do, and
 * whether the throughput target is within reach of any evaluator on the machine (docs/benchmarks.md).
 */
import {
  BuiltinRegistry,
  defaultRegistry,
  equal,
  PolicySet,
  type BuiltinContext,
  type BuiltinImpl,
  type Value,
} from '../rego/index.js';
import type { CallSite } from '../rego/builtins/registry.js';
import { withNormalized } from '../runtime/policy/normalized-input.js';
import { loadPolicyManifests, toModules } from '../runtime/policy/pack/index.js';
import { RegoPolicyEngine } from '../runtime/policy/engine.js';
import type { PolicyInput, PolicyOutcome, PolicyScope } from '../runtime/policy/types.js';

interface Call {
  readonly impl: BuiltinImpl;
  readonly args: readonly Value[];
  readonly result: Value | undefined;
  readonly site: CallSite;
}

/**
 * A recorded call as replayed: per argument, the slot of the text it was derived from (0: the query; i + 1: the
 * result of step i), or -1 for a value used as recorded; `derives` when its result is such a text (`lower`).
 */
interface Step extends Call {
  readonly from: readonly number[];
  readonly derives: boolean;
}

/** The pack's builtin calls on a query, ready to replay on another text (see replay). */
export interface Recording {
  readonly steps: readonly Step[];
}

/** The builtin context of a replay: what the pack's builtins read (none of them reads time, memo or print). */
const CONTEXT: BuiltinContext = {
  strict: false,
  nowNs: () => BigInt(Date.now()) * 1_000_000n,
  cache: new Map(),
  checkDeadline: () => undefined,
  charge: () => undefined,
};

/** Every builtin of the default registry, wrapped to append its calls to `calls`. */
function recordingRegistry(calls: Call[]): BuiltinRegistry {
  const base = defaultRegistry();
  const r = new BuiltinRegistry();
  for (const name of base.names()) {
    const { decl, impl } = base.get(name)!;
    r.add(decl, (args, ctx, site) => {
      const result = impl(args, ctx, site);
      // NB: a site of its own per call, as the evaluator keeps one per call in the plan.
      calls.push({ impl, args: [...args], result, site: { memo: undefined } });
      return result;
    });
  }
  for (const name of base.unsupportedNames()) {
    const u = base.getUnsupported(name)!;
    r.addUnsupported(u.name, u.reason, u.arity);
  }
  return r;
}

/**
 * The pack's builtin calls on `query` once warm: the second evaluation's (the first also computes the documents
 * that are the same for every input, which later evaluations reuse). The pack must approve the query without a message.
 */
export async function recordPack(query: string): Promise<Recording> {
  const calls: Call[] = [];
  const set = PolicySet.compile(toModules(await loadPolicyManifests()), { registry: recordingRegistry(calls) });
  for (let i = 0; i < 2; i++) {
    calls.length = 0;
    // NB: with the normalized copies the engine adds (input.normalized); of an ASCII query they are the query itself
    const result = set.evaluate(withNormalized({ query, surface: 'pre-check' }), { deadlineMs: 60_000 });
    if (result.blocked || result.deny.length > 0 || result.warn.length > 0)
      throw new Error('the floor server needs a query the pack approves without a message');
  }
  // Which arguments are the query or a text derived from it, worked out once here rather than on every request.
  const slotOf = new Map<Value, number>([[query, 0]]);
  const steps = calls.map((c, i): Step => {
    const from = c.args.map((a) => slotOf.get(a) ?? -1);
    const derives = typeof c.result === 'string' && from.some((x) => x >= 0);
    if (derives) slotOf.set(c.result!, i + 1);
    return { ...c, from, derives };
  });
  return { steps };
}

/**
 * Replays a recording on `text`: the query's place takes the text, a text derived from it (`lower`) the replayed
 * one. True when every other result is the recorded one (the gates' `false`, `is_string`'s `true`).
 */
export function replay(rec: Recording, text: string): boolean {
  const steps = rec.steps;
  const slots: Value[] = new Array(steps.length + 1);
  slots[0] = text;
  for (let i = 0; i < steps.length; i++) {
    const c = steps[i]!;
    const args: Value[] = new Array(c.args.length);
    for (let j = 0; j < args.length; j++) {
      const from = c.from[j]!;
      args[j] = from < 0 ? c.args[j]! : slots[from]!;
    }
    const r = c.impl(args, CONTEXT, c.site);
    if (c.derives && typeof r === 'string') slots[i + 1] = r;
    else if (r === undefined || c.result === undefined ? r !== c.result : !equal(r, c.result)) return false;
  }
  return true;
}

/**
 * Makes every RegoPolicyEngine of this process answer the recorded query's shape by replay (first request through
 * the engine, for the list of policies evaluated) until the function returned is called. Only for the benchmark's
 * server process.
 */
export function installFloor(rec: Recording): () => void {
  const evaluate = RegoPolicyEngine.prototype.evaluate;
  let evaluated: readonly string[] | undefined;
  RegoPolicyEngine.prototype.evaluate = function (
    this: RegoPolicyEngine,
    input: PolicyInput,
    scope: PolicyScope,
  ): PolicyOutcome {
    const t0 = performance.now();
    const plain = input.surface === 'pre-check' && input.mcp === undefined && input.llm === undefined;
    if (evaluated !== undefined && plain && replay(rec, input.query)) {
      return {
        approved: true,
        triggered: [],
        warnings: [],
        logged: [],
        results: [],
        evaluated: [...evaluated],
        evaluationMs: performance.now() - t0,
      };
    }
    const result = evaluate.call(this, input, scope);
    // NB: the benchmark's query is short, so the engine answers inline (a promise only for isolated inputs).
    if (!(result instanceof Promise) && result.approved && result.warnings.length === 0) evaluated ??= result.evaluated;
    return result;
  };
  return () => {
    RegoPolicyEngine.prototype.evaluate = evaluate;
  };
}
