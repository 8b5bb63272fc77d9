/**
 * The License node cap: `status.maxNodes` of a License caps the total of Steward pods that run under it in its
 * namespace — the gateway and orchestrator replicas of the Orchestrators referencing it, plus the agent
 * replicas of the AgentConfigs in their pools. Pure, so the Orchestrator and AgentConfig controllers, which
 * each compute the whole allocation and take their own part of it, always agree.
 *
 * When the request exceeds the cap, replicas beyond it are not created. The budget is handed out in rounds,
 * names sorted, so the result depends only on the request:
 *  1. one gateway, then one orchestrator pod per Orchestrator (an installation that serves at all);
 *  2. one pod per AgentConfig (every agent of the pool reachable);
 *  3. the remaining gateway, then orchestrator replicas per Orchestrator;
 *  4. the remaining agent replicas per AgentConfig.
 * A component asking for 0 replicas gets 0.
 */

export interface CapRequest {
  orchestrators: { name: string; gateway: number; orchestrator: number }[];
  agents: { name: string; replicas: number }[];
}

export interface CapAllocation {
  orchestrators: Record<string, { gateway: number; orchestrator: number }>;
  agents: Record<string, number>;
  requested: number;
  granted: number;
  /** True when some replicas were not granted. */
  limited: boolean;
}

/** Allocates replicas under `maxNodes`; undefined `maxNodes` (no License, community mode) grants everything. */
export function capReplicas(maxNodes: number | undefined, req: CapRequest): CapAllocation {
  const orchestrators = [...req.orchestrators].sort((a, b) => a.name.localeCompare(b.name));
  const agents = [...req.agents].sort((a, b) => a.name.localeCompare(b.name));
  const requested =
    orchestrators.reduce((n, o) => n + o.gateway + o.orchestrator, 0) + agents.reduce((n, a) => n + a.replicas, 0);
  let budget = maxNodes === undefined ? Number.POSITIVE_INFINITY : Math.max(0, maxNodes);
  const out: CapAllocation = {
    orchestrators: Object.fromEntries(orchestrators.map((o) => [o.name, { gateway: 0, orchestrator: 0 }])),
    agents: Object.fromEntries(agents.map((a) => [a.name, 0])),
    requested,
    granted: 0,
    limited: false,
  };
  /** Grants up to `upTo` (total) to a slot currently holding `have`, within the budget; returns the new total. */
  const grant = (have: number, upTo: number): number => {
    const n = Math.max(0, Math.min(upTo - have, budget));
    budget -= n;
    return have + n;
  };
  for (const o of orchestrators) {
    const a = out.orchestrators[o.name]!;
    a.gateway = grant(a.gateway, Math.min(1, o.gateway));
    a.orchestrator = grant(a.orchestrator, Math.min(1, o.orchestrator));
  }
  for (const ag of agents) out.agents[ag.name] = grant(out.agents[ag.name]!, Math.min(1, ag.replicas));
  for (const o of orchestrators) {
    const a = out.orchestrators[o.name]!;
    a.gateway = grant(a.gateway, o.gateway);
    a.orchestrator = grant(a.orchestrator, o.orchestrator);
  }
  for (const ag of agents) out.agents[ag.name] = grant(out.agents[ag.name]!, ag.replicas);
  out.granted =
    Object.values(out.orchestrators).reduce((n, o) => n + o.gateway + o.orchestrator, 0) +
    Object.values(out.agents).reduce((n, r) => n + r, 0);
  out.limited = out.granted < requested;
  return out;
}

/** The user-facing sentence of a limited allocation, e.g. for a Warning Event and the NodeLimitExceeded condition. */
export function capMessage(license: string, maxNodes: number, alloc: CapAllocation): string {
  return `License ${license} allows ${maxNodes} Steward pods in the namespace and ${alloc.requested} were requested; ${alloc.requested - alloc.granted} replicas were not created`;
}
