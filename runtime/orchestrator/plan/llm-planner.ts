/**
 * The LLM planner: asks the default provider for a JSON plan over the domain's agents, checks the answer
 * (validate.ts), asks once more with the problems when it fails, and otherwise falls back to the deterministic
 * plan. `planner` in the outcome says which one ran: 'llm', 'llm-repaired' or 'deterministic'. Each call goes
 * through the governed pipeline (runtime/governed): a request its input policies block is refused (403
 * POLICY_VIOLATION) and never reaches the provider, rather than planned without it.
 */
import type { Identity } from '../../auth/identity.js';
import { collect, llmUpstream, openGoverned, PolicyBlockedError, type GovernedDeps } from '../../governed/index.js';
import type { LlmMessage, LlmRouter } from '../../llm/index.js';
import { checkPlan } from './validate.js';
import { PLAN_MAX_STEPS, type Plan, type PlanAgent, type PlanStep, type StepRefusal } from './types.js';

export interface LlmPlannerInput {
  query: string;
  domain: string;
  /** the agents offered: the domain's and the generic ones */
  offered: readonly PlanAgent[];
  /** the whole registry: a step naming an agent outside it is refused */
  registry: ReadonlyMap<string, PlanAgent>;
  /** the plan to use when the LLM's answers fail */
  fallback: () => PlanStep[];
  llm: LlmRouter;
  /** Budget of one planner call. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The governed pipeline of the planner's calls, for the caller's identity (surface `plan`). */
  governed: GovernedDeps;
  identity: Identity;
  /** The caller's user as the request names it (descriptive: the audit row's user token). */
  userToken: string;
  /** The plan's id, for the audit rows. */
  planId: string;
}

const MAX_TOKENS = 1500;

const SYSTEM = [
  'You plan multi-agent work. Answer with one JSON object and nothing else:',
  '{"steps":[{"id":"step-1","name":"...","type":"llm-call","description":"...","depends_on":[],"agent":"<agent name>"}]}',
  `Rules: at most ${PLAN_MAX_STEPS} steps; "agent" must be one of the listed agent names; "depends_on" lists ids of earlier steps;`,
  'no cycles; the last step is the synthesis: it depends on every other step (directly or through others) and merges their results.',
  'Other step types, only with all their fields: {"type":"connector-call","connector":"<name>","tool":"<tool>","arguments":{...}} or',
  '{"type":"connector-call","connector":"<name>","query":{"statement":"SELECT ..."},"arguments":[...]};',
  '{"type":"a2a-call","connector":"<a2a connector>","message":"..."} (a remote agent; without "message" it gets the step description);',
  '{"type":"policy-check","policy":"<policy name>","input":{"query":"...","context":{...}}}.',
].join('\n');

function userText(input: LlmPlannerInput): string {
  const agents = input.offered.map(
    (a) =>
      `- ${a.name} (${a.type}, domain ${a.domain}): ${a.description} Capabilities: ${a.capabilities.join(', ') || 'none'}.`,
  );
  return `Request: ${input.query}\nDomain: ${input.domain}\nAgents:\n${agents.join('\n')}`;
}

/** The JSON object inside an answer: code fences and prose around it are ignored. */
export function extractJson(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

export async function llmPlan(input: LlmPlannerInput): Promise<Plan> {
  const messages: LlmMessage[] = [{ role: 'user', content: userText(input) }];
  let problems: string[];
  // NB: a step refused for missing fields never runs; the refusals are reported with whichever plan runs instead.
  const refused: StepRefusal[] = [];
  // NB: the warnings of every planner call, whichever plan runs: the caller sees them with the plan's answer.
  const warnings = new Set<string>();
  const withRefusals = (plan: Plan): Plan => ({
    ...plan,
    ...(refused.length ? { plannerRefusals: refused } : {}),
    ...(warnings.size ? { warnings: [...warnings] } : {}),
  });
  try {
    const first = await ask(input, messages, warnings);
    const check = checkPlan(extractJson(first), input.registry);
    if (check.ok) return withRefusals({ domain: input.domain, steps: check.steps, planner: 'llm' });
    problems = check.problems;
    refused.push(...check.refused);
    messages.push(
      { role: 'assistant', content: first },
      {
        role: 'user',
        content: `That plan cannot be used: ${problems.join('; ')}. Answer with the corrected JSON object only.`,
      },
    );
    const second = await ask(input, messages, warnings);
    const again = checkPlan(extractJson(second), input.registry);
    if (again.ok)
      return withRefusals({
        domain: input.domain,
        steps: again.steps,
        planner: 'llm-repaired',
        plannerNote: `repaired: ${problems.join('; ')}`,
      });
    problems = again.problems;
    refused.push(...again.refused);
  } catch (err) {
    input.signal?.throwIfAborted();
    // NB: a blocked request is not planned without the LLM: the deterministic plan would run it on the agents.
    if (err instanceof PolicyBlockedError && err.stage === 'input') throw err;
    problems = [`the planner call failed: ${err instanceof Error ? err.message : String(err)}`];
  }
  return withRefusals({
    domain: input.domain,
    steps: input.fallback(),
    planner: 'deterministic',
    plannerNote: `the LLM plan was replaced: ${problems.join('; ')}`,
  });
}

async function ask(input: LlmPlannerInput, messages: readonly LlmMessage[], warnings: Set<string>): Promise<string> {
  const { identity } = input;
  const run = await openGoverned(
    input.governed,
    {
      via: 'planner',
      surface: 'plan',
      identity,
      clientId: identity.clientId ?? identity.organizationId,
      userToken: input.userToken,
      prompt: input.query,
      llm: { messages: messages.map((m) => ({ role: m.role, content: m.content })) },
      maxTokens: MAX_TOKENS,
      signal: input.signal,
      metadata: { plan_id: input.planId },
    },
    () =>
      llmUpstream(input.llm, {
        system: SYSTEM,
        messages,
        temperature: 0,
        maxTokens: MAX_TOKENS,
        timeoutMs: input.timeoutMs,
      }),
  );
  const answer = await collect(run);
  for (const w of answer.warnings) warnings.add(w);
  return answer.text;
}
