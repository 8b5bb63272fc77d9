/** Shared pieces of the plan surface's integration tests: the shipped samples, test agents and a loose answer type. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

const SAMPLES_DIR = new URL('../../../../config/samples', import.meta.url).pathname;

/** Every AgentConfig of config/samples, as one manifest text. */
export const SAMPLES = readdirSync(SAMPLES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => readFileSync(join(SAMPLES_DIR, f), 'utf8'))
  .join('\n---\n');

/** A specialist of its own domain with a short timeout (the hung-step test). */
export const specialistYaml = (name: string, domain: string, timeout: string) =>
  `\n---\napiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: ${name}}\nspec:\n  type: specialist\n  domain: ${domain}\n  description: ${name} test agent\n  capabilities: [waiting]\n  llm: {provider: openai, model: gpt-4o-mini}\n  timeout: ${timeout}\n  replicas: 1\n`;

export interface Task {
  id: string;
  name: string;
  agent: string;
  status: string;
  time_ms: number;
  started_ms: number;
  ended_ms: number;
  error?: { code: string; message: string };
  provider?: string;
  model?: string;
  fallback?: boolean;
  requested_provider?: string;
}

/** A plan answer or error, read loosely: the assertions check its shape. */
export interface PlanBody {
  success: boolean;
  plan_id: string;
  workflow_execution_id: string;
  result: string;
  steps: { id: string; name: string; type: string; description: string; depends_on: string[]; agent: string }[];
  metadata: {
    tasks_executed: number;
    execution_mode: string;
    execution_time_ms: number;
    tasks: Task[];
    planner: string;
    planner_note?: string;
    domain: string;
  };
  error?: {
    code: string;
    message: string;
    details?: Record<string, unknown> & { steps?: { step: string; code: string; message: string }[] };
  };
  status?: string;
  blocked?: boolean;
  block_reason?: string;
  data?: PlanBody;
}

export async function postPlan(app: FastifyInstance, body: unknown, headers: Record<string, string>) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/plan',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, body: res.json<PlanBody>() };
}

export async function getPlan(app: FastifyInstance, id: string, headers: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: `/api/v1/plan/${id}`, headers });
  return { status: res.statusCode, body: res.json<PlanBody>() };
}

/** A promise with its resolve function, for "the stand-in received the hung request". */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
