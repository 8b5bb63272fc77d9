/**
 * Plan surface benchmark (issue 20): `POST /api/v1/plan` for a 5-step plan — four specialist steps in parallel and a
 * synthesis that depends on them — on in-process pool agents whose LLM step calls an OpenAI stand-in (this process,
 * the real SDK) that answers STAND_IN_MS after each request arrived. The plan's critical path holds two stand-in
 * calls (the parallel wave, then the synthesis), so the stand-in's time is 2 × STAND_IN_MS.
 *
 * Figures: the overhead (the call's wall time, as the client measures it through `app.inject`, minus the
 * stand-in's time) at p50 and p99 — planning, the policy pre-flight of the five steps, the plan record (two
 * writes), dispatch, the agents' work items, the SDK and loopback HTTP to the stand-in, and the answer; and two
 * parts of it: the time before the first step starts (planning, pre-flight, record) and the gap between the last
 * specialist's end and the synthesis's start (the DAG scheduler).
 */
import {
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../testing/llm/index.js';
import { loadavg } from 'node:os';
import { machine, percentile, processFlags } from './report.js';

const STAND_IN_MS = 100;
const REQUESTS = Number(process.env.BENCH_PLAN_REQUESTS ?? 200);
const WARMUP = 10;
const TARGET_P50_MS = 5;

const agent = (name: string, type: 'specialist' | 'coordinator', capability: string) =>
  `---\napiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: ${name}}\nspec:\n  type: ${type}\n  domain: bench\n  description: ${name} bench agent\n  capabilities: [${capability}]\n` +
  (type === 'specialist' ? '  llm: {provider: openai, model: gpt-4o-mini}\n' : '') +
  '  replicas: 1\n';

const MANIFESTS =
  ['alpha', 'bravo', 'charlie', 'delta'].map((c) => agent(`bench-${c}`, 'specialist', `${c}-work`)).join('') +
  agent('bench-coordinator', 'coordinator', 'merging');
const QUERY = 'Compare the alpha, bravo, charlie and delta options for the offsite';

interface Task {
  name: string;
  started_ms: number;
  ended_ms: number;
}
interface Answer {
  success: boolean;
  steps: unknown[];
  metadata: { execution_time_ms: number; tasks: Task[] };
}

export async function run(): Promise<{ markdown: string }> {
  let llm: FakeOpenAiServer | undefined;
  let gw: TestGateway | undefined;
  let orch: TestOrchestrator | undefined;
  const load = loadavg()[0]!.toFixed(2);
  try {
    llm = await startFakeOpenAi({ delayMs: STAND_IN_MS });
    gw = await startTestGateway({
      env: { OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: llm.baseURL },
      manifests: MANIFESTS,
    });
    orch = await startTestOrchestrator(gw, { planner: 'deterministic' });
    const overheads: number[] = [];
    const before: number[] = [];
    const gaps: number[] = [];
    const steps: number[] = [];
    const after: number[] = [];
    for (let i = -WARMUP; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await orch.app.inject({
        method: 'POST',
        url: '/api/v1/plan',
        headers: { 'content-type': 'application/json', 'x-license-key': gw.keys.acme },
        payload: JSON.stringify({ query: QUERY, domain: 'bench' }),
      });
      const wall = performance.now() - t0;
      const body = res.json<Answer>();
      if (res.statusCode !== 200 || !body.success || body.steps.length !== 5)
        throw new Error(`plan failed: ${res.statusCode} ${res.body.slice(0, 500)}`);
      if (i < 0) continue;
      const tasks = body.metadata.tasks;
      const synthesis = tasks.find((t) => t.name === 'synthesis')!;
      const specialists = tasks.filter((t) => t !== synthesis);
      overheads.push(wall - 2 * STAND_IN_MS);
      before.push(Math.min(...specialists.map((t) => t.started_ms)));
      gaps.push(synthesis.started_ms - Math.max(...specialists.map((t) => t.ended_ms)));
      for (const t of tasks) steps.push(t.ended_ms - t.started_ms - STAND_IN_MS);
      after.push(wall - synthesis.ended_ms);
    }
    const sort = (a: number[]) => [...a].sort((x, y) => x - y);
    const p = (a: number[], q: number) => percentile(sort(a), q).toFixed(2);
    const p50 = percentile(sort(overheads), 50);
    return {
      markdown: [
        '## Plan surface (`npm run bench -- plan`)',
        '',
        `${new Date().toISOString().slice(0, 10)} · ${machine()} · ${processFlags()} · load average at start ${load}`,
        '',
        `Method: \`POST /api/v1/plan\` through \`app.inject\` (no socket), ${REQUESTS} plans one after another after ${WARMUP} warm-up plans; a 5-step plan`,
        `(four specialists in parallel, then a synthesis depending on them) from the deterministic planner, on in-process pool agents whose`,
        `LLM calls reach an OpenAI stand-in (the real SDK, loopback HTTP) answering ${STAND_IN_MS} ms after each request. Overhead = wall time − 2 × ${STAND_IN_MS} ms`,
        '(the stand-in time on the critical path): planning, the policy pre-flight of the five steps (the built-in pack), the plan record (PGlite),',
        "dispatch, the agents' work items, the SDK and the HTTP round trips to the stand-in, the answer.",
        '',
        '| figure | p50 ms | p99 ms |',
        '|---|---|---|',
        `| overhead (target ≤ ${TARGET_P50_MS} ms at p50) | ${p(overheads, 50)} | ${p(overheads, 99)} |`,
        `| of which: before the first step (planning, pre-flight, record) | ${p(before, 50)} | ${p(before, 99)} |`,
        `| of which: last specialist's end → synthesis start (scheduler) | ${p(gaps, 50)} | ${p(gaps, 99)} |`,
        `| of which: after the synthesis (record, events, answer) | ${p(after, 50)} | ${p(after, 99)} |`,
        `| one step less the stand-in (dispatch, work item, SDK, loopback HTTP) | ${p(steps, 50)} | ${p(steps, 99)} |`,
        '',
        `Target ${p50 <= TARGET_P50_MS ? 'met' : 'missed'}: p50 overhead ${p50.toFixed(2)} ms. The plan surface's own work is the first three parts`,
        '(before the first step, the scheduler gap, after the synthesis); the rest is the two LLM round trips on the critical path, each a pool',
        "dispatch, the agent's work item and an SDK call over loopback HTTP (the parallel benchmark's \"around the LLM call\"), and the wave's",
        'slowest of four such calls.',
      ].join('\n'),
    };
  } finally {
    await orch?.close();
    await gw?.close();
    await llm?.close();
  }
}
