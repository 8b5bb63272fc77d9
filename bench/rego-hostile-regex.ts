/**
 * The built-in pack on hostile and benign texts with a 200 ms deadline: wall time and outcome per input
 * (`npx tsx bench/rego-hostile-regex.ts`). A probe for docs/rego-support.md's Limits section, not a benchmark.
 */
import { withNormalized } from '../runtime/policy/normalized-input.js';
import { loadBuiltinPack } from '../runtime/policy/pack/index.js';

const benign = 'The quick brown fox jumps over the lazy dog while planning a trip to Paris in spring. '.repeat(580);
const inputs: [string, string][] = [
  ['"\\n" x 400,000', '\n'.repeat(400_000)],
  ['"\\n" x 40,000', '\n'.repeat(40_000)],
  ['"union/**/select " x 5000', 'union/**/select '.repeat(5000)],
  [`benign ${Math.round(benign.length / 1024)} KB`, benign],
  ['short prompt', 'Please book me a flight to Paris next Tuesday and a hotel near the Louvre.'],
];

const set = await loadBuiltinPack();
for (const [name, query] of inputs) {
  const times: number[] = [];
  let outcome = '';
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    // as the engine evaluates it: the normalized copies made, then the pack
    const r = set.evaluate(withNormalized({ query, surface: 'pre-check' }), { deadlineMs: 200 });
    times.push(performance.now() - t0);
    const err = r.decisions.find((d) => d.error)?.error;
    outcome = err ? `blocked: ${err.code} ${err.message}` : r.blocked ? 'blocked' : 'allowed';
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: median ${times[1]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}) — ${outcome}`);
}
