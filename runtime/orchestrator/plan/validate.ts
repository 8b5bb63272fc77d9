/**
 * Checks a candidate plan (the LLM planner's answer) against a schema and the registry: at most PLAN_MAX_STEPS
 * steps, unique ids, dependencies that exist, agents that exist, no cycle, and one synthesis step — a single
 * final step that every other step leads to; a connector-call, a2a-call or policy-check step without its fields is refused
 * with a coded StepRefusal (never run as an LLM call). Pure.
 */
import { z } from 'zod';
import { PLAN_MAX_STEPS, type PlanAgent, type PlanStep, type StepRefusal, type StepType } from './types.js';

const id = z.string().min(1).max(64);
const json = z.record(z.string(), z.unknown());
// NB: a step's type fields are optional here: a step without them is refused below with a coded StepRefusal,
// never defaulted to an LLM call.
const stepSchema = z.object({
  id,
  name: z.string().min(1).max(128),
  type: z.enum(['llm-call', 'connector-call', 'a2a-call', 'policy-check']).default('llm-call'),
  description: z.string().max(2000).default(''),
  depends_on: z.array(id).max(PLAN_MAX_STEPS).default([]),
  agent: z.string().min(1).max(253),
  connector: z.string().min(1).max(256).optional(),
  tool: z.string().min(1).max(256).optional(),
  query: z
    .object({
      statement: z
        .string()
        .min(1)
        .max(64 * 1024),
    })
    .optional(),
  arguments: z.union([json, z.array(z.unknown()).max(1024)]).optional(),
  message: z
    .string()
    .min(1)
    .max(32 * 1024)
    .optional(),
  data: json.optional(),
  policy: z.string().min(1).max(253).optional(),
  input: z
    .object({
      query: z
        .string()
        .max(32 * 1024)
        .optional(),
      user: json.optional(),
      context: json.optional(),
      mcp: json.optional(),
      llm: json.optional(),
    })
    .strict()
    .optional(),
});
const candidateSchema = z.object({ steps: z.array(stepSchema).min(1) });

type CandidateStep = z.infer<typeof stepSchema>;

export type PlanCheck = { ok: true; steps: PlanStep[] } | { ok: false; problems: string[]; refused: StepRefusal[] };

/** The step as its type has it, or the refusal naming the fields it lacks. */
export function typedStep(s: CandidateStep): PlanStep | StepRefusal {
  const base = {
    id: s.id,
    name: s.name,
    description: s.description,
    depends_on: [...new Set(s.depends_on)],
    agent: s.agent,
  };
  const missing: string[] = [];
  if (s.type === 'connector-call') {
    if (s.connector === undefined) missing.push('connector');
    if ((s.tool === undefined) === (s.query === undefined)) missing.push('tool|query.statement');
    else if (s.tool !== undefined && Array.isArray(s.arguments)) missing.push('arguments (an object for a tool)');
    if (missing.length === 0) {
      return {
        ...base,
        type: 'connector-call',
        connector: s.connector!,
        ...(s.tool !== undefined ? { tool: s.tool } : { query: s.query! }),
        arguments: s.arguments ?? {},
      };
    }
  } else if (s.type === 'a2a-call') {
    if (s.connector === undefined) missing.push('connector');
    if (missing.length === 0)
      return {
        ...base,
        type: 'a2a-call',
        connector: s.connector!,
        ...(s.message !== undefined ? { message: s.message } : {}),
        ...(s.data !== undefined ? { data: s.data } : {}),
      };
  } else if (s.type === 'policy-check') {
    if (s.policy === undefined) missing.push('policy');
    if (s.input === undefined) missing.push('input');
    if (missing.length === 0) return { ...base, type: 'policy-check', policy: s.policy!, input: s.input! };
  } else {
    return { ...base, type: 'llm-call' };
  }
  return refusal(s.id, s.type, missing);
}

export function refusal(step: string, type: StepType, fields: string[]): StepRefusal {
  const need =
    type === 'connector-call'
      ? 'connector and a tool (with arguments) or query.statement'
      : type === 'a2a-call'
        ? 'connector (an a2a Connector), and a message or data if the step description is not the message'
        : 'policy and input';
  return {
    code: 'INVALID_REQUEST',
    message: `step ${step} (${type}) lacks ${fields.join(', ')}: a ${type} step needs ${need}`,
    details: { step, type, fields },
  };
}

/** Whether a value is a refusal rather than a step. */
export const isRefusal = (v: PlanStep | StepRefusal): v is StepRefusal => 'code' in v;

export function checkPlan(candidate: unknown, agents: ReadonlyMap<string, PlanAgent>): PlanCheck {
  const parsed = candidateSchema.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      refused: [],
      problems: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(plan)'}: ${i.message}`),
    };
  }
  const typed = parsed.data.steps.map(typedStep);
  const refused = typed.filter(isRefusal);
  if (refused.length > 0) return { ok: false, refused, problems: refused.map((r) => `${r.code}: ${r.message}`) };
  const steps = typed as PlanStep[];
  const problems: string[] = [];
  if (steps.length > PLAN_MAX_STEPS)
    problems.push(`the plan has ${steps.length} steps; at most ${PLAN_MAX_STEPS} are allowed`);
  const ids = new Set<string>();
  for (const s of steps) {
    if (ids.has(s.id)) problems.push(`step id ${s.id} is used twice`);
    ids.add(s.id);
    if (!agents.has(s.agent)) problems.push(`step ${s.id} names the unknown agent ${s.agent}`);
  }
  for (const s of steps) {
    for (const d of s.depends_on) {
      if (!ids.has(d)) problems.push(`step ${s.id} depends on the unknown step ${d}`);
      if (d === s.id) problems.push(`step ${s.id} depends on itself`);
    }
  }
  if (problems.length > 0) return { ok: false, refused: [], problems };
  const cycle = findCycle(steps);
  if (cycle) return { ok: false, refused: [], problems: [`the steps form a cycle: ${cycle.join(' → ')}`] };
  const sinks = steps.filter((s) => !steps.some((o) => o.depends_on.includes(s.id)));
  if (sinks.length !== 1) {
    return {
      ok: false,
      refused: [],
      problems: [
        `missing synthesis: one final step must depend on the others; ${sinks.map((s) => s.id).join(', ')} are all final`,
      ],
    };
  }
  return { ok: true, steps };
}

/** A cycle as a list of step ids (first repeated at the end), or undefined. Depth-first, colouring the steps. */
export function findCycle(steps: readonly PlanStep[]): string[] | undefined {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    path.push(id);
    for (const d of byId.get(id)?.depends_on ?? []) {
      const found = visit(d);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const s of steps) {
    const found = visit(s.id);
    if (found) return found;
  }
  return undefined;
}

/** Steps in a topological order, stable: among ready steps, the one listed first goes first. */
export function topologicalOrder(steps: readonly PlanStep[]): PlanStep[] {
  const done = new Set<string>();
  const out: PlanStep[] = [];
  while (out.length < steps.length) {
    const next = steps.find((s) => !done.has(s.id) && s.depends_on.every((d) => done.has(d)));
    if (!next) throw new Error('topologicalOrder: the steps form a cycle');
    done.add(next.id);
    out.push(next);
  }
  return out;
}
