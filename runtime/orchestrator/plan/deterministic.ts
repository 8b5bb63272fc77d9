/**
 * The deterministic planner: the domain's specialists whose capabilities the query mentions (all of the domain's
 * specialists when it mentions none), each a step of its own with no dependencies, then one synthesis step that
 * depends on all of them, run by the domain's coordinator, else the generic coordinator, else the generic
 * specialist. The same request and catalogue always give the same plan.
 */
import { words } from './agents.js';
import { PLAN_MAX_STEPS, type PlanAgent, type PlanStep } from './types.js';

/** No agent serves the request's domain (400 NO_AGENTS_AVAILABLE). */
export class NoAgentsError extends Error {
  readonly code = 'NO_AGENTS_AVAILABLE';
  constructor(readonly domain: string) {
    super(
      `no agent serves the domain ${domain}${domain === 'generic' ? '' : ' (nor the generic domain)'}; add an AgentConfig with spec.domain: ${domain}`,
    );
    this.name = 'NoAgentsError';
  }
}

export const SYNTHESIS_NAME = 'synthesis';

const byName = (a: PlanAgent, b: PlanAgent) => a.name.localeCompare(b.name);

/**
 * The agents of a domain; an inferred domain without agents falls back to `generic` (a named one does not:
 * the caller asked for that domain). Throws NoAgentsError when nothing is left.
 */
export function domainAgents(
  domain: string,
  inferred: boolean,
  agents: Iterable<PlanAgent>,
): { domain: string; agents: PlanAgent[] } {
  const all = [...agents].sort(byName);
  const of = (d: string) => all.filter((a) => a.domain === d);
  const own = of(domain);
  if (own.length > 0) return { domain, agents: own };
  if (inferred || domain === 'generic') {
    const generic = of('generic');
    if (generic.length > 0) return { domain: 'generic', agents: generic };
  }
  throw new NoAgentsError(domain);
}

/** The specialists a query asks for: those sharing a capability word with it, else every specialist of the domain. */
export function matchingSpecialists(query: string, agents: readonly PlanAgent[]): PlanAgent[] {
  const specialists = agents.filter((a) => a.type === 'specialist');
  const asked = words(query);
  const matched = specialists.filter((a) =>
    a.capabilities.some((c) => [...words(c)].some((w) => w.length > 3 && asked.has(w))),
  );
  return (matched.length > 0 ? matched : specialists).slice(0, PLAN_MAX_STEPS - 1);
}

/** The agent that merges the specialists' answers. */
function synthesiser(
  domainOwn: readonly PlanAgent[],
  all: Iterable<PlanAgent>,
  specialists: readonly PlanAgent[],
): PlanAgent {
  const everyone = [...all].sort(byName);
  return (
    domainOwn.find((a) => a.type === 'coordinator') ??
    everyone.find((a) => a.domain === 'generic' && a.type === 'coordinator') ??
    everyone.find((a) => a.domain === 'generic' && a.type === 'specialist') ??
    specialists[0]!
  );
}

export function deterministicSteps(
  query: string,
  domain: { agents: PlanAgent[] },
  all: Iterable<PlanAgent>,
): PlanStep[] {
  const specialists = matchingSpecialists(query, domain.agents);
  if (specialists.length === 0) {
    // A domain of coordinators only: one step, which is its own synthesis.
    const only = domain.agents[0]!;
    return [
      {
        id: 'step-1',
        name: SYNTHESIS_NAME,
        type: 'llm-call',
        description: synthesisText(only),
        depends_on: [],
        agent: only.name,
      },
    ];
  }
  const steps: PlanStep[] = specialists.map((a, i) => ({
    id: `step-${i + 1}`,
    name: a.name,
    type: 'llm-call',
    description: a.description || `the ${a.name} agent's part of the request`,
    depends_on: [],
    agent: a.name,
  }));
  const merge = synthesiser(domain.agents, all, specialists);
  steps.push({
    id: `step-${steps.length + 1}`,
    name: SYNTHESIS_NAME,
    type: 'llm-call',
    description: synthesisText(merge),
    depends_on: steps.map((s) => s.id),
    agent: merge.name,
  });
  return steps;
}

function synthesisText(agent: PlanAgent): string {
  return `Combine the results of the other steps into one answer to the request (${agent.name})`;
}
