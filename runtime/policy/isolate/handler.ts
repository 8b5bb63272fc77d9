/**
 * What an isolation worker does with each message: compile the plans it is sent, evaluate inputs against them.
 * Apart from worker.ts so that tests can run it in a worker of their own.
 */
import { warmUpPack } from '../pack/index.js';
import { planCompilers, ScopePlan, type PlanEntry } from '../plan.js';
import type { FromWorker, ToWorker } from './protocol.js';

const compilers = planCompilers();
let plans = new Map<string, ScopePlan>();

function load(list: [string, PlanEntry[]][]): void {
  const next = new Map<string, ScopePlan>();
  // NB: the engine sends only modules that compiled (and wasm bundles that loaded) on its side.
  for (const [key, entries] of list) next.set(key, plans.get(key) ?? new ScopePlan(key, entries, compilers));
  plans = next;
  // Like the engine, fill this thread's regex cache before the first request.
  const first = next.values().next().value;
  if (first) warmUpPack(first);
}

export function handle(m: ToWorker): FromWorker {
  if (m.t === 'load') {
    try {
      load(m.plans);
    } catch {
      // the jobs of the plans that did not compile fail (engine exception); the worker stays up for the others
    }
    return { t: 'loaded', generation: m.generation };
  }
  try {
    const plan = plans.get(m.key);
    if (!plan) throw new Error('the policies changed while the evaluation waited');
    return { t: 'result', id: m.id, result: plan.evaluate(m.input, m.limits) };
  } catch (e) {
    return { t: 'failed', id: m.id, message: e instanceof Error ? e.message : String(e) };
  }
}
