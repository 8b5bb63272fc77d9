import type { Agent } from '../../agent/work.js';

/** How a member runs: inside this process, or as a separate agent process reached over HTTP. */
export type MemberKind = 'in-process' | 'remote';

/**
 * A remote agent can be probed; in-process agents cannot (they are healthy while they are members).
 * The probe rejects when the agent is not ready.
 */
export interface ProbedAgent extends Agent {
  probe(signal: AbortSignal): Promise<void>;
}

export function isProbed(agent: Agent): agent is ProbedAgent {
  return typeof (agent as Partial<ProbedAgent>).probe === 'function';
}

/** A member as a source hands it to the pool. From then on the pool owns the agent and closes it. */
export interface MemberInit {
  /** Unique within the source, stable while the member exists (e.g. `default/travel-planner#0`). */
  key: string;
  kind: MemberKind;
  agent: Agent;
  /** The AgentConfig (`namespace/name`) the member runs, when the source knows it. */
  agentConfig?: string;
}

/** One batch of changes: members to add and keys of members to remove (drained, then closed by the pool). */
export interface MemberChange {
  added: readonly MemberInit[];
  removed: readonly string[];
}

/**
 * Where the pool's members come from. Three kinds are foreseen:
 * - standalone: `spec.replicas` in-process agents per selected AgentConfig of the DeclarativeSource
 *   (standalone-source.ts);
 * - static: the remote endpoints of STEWARD_AGENT_ENDPOINTS (static-source.ts);
 * - kubernetes: the ready endpoints of the EndpointSlices of each selected AgentConfig's Service,
 *   watched through informers (endpointslice-source.ts): `kind: 'remote'` members (RemoteAgent) and
 *   `desired` = the sum of the replicas of the selected AgentConfigs.
 */
export interface MemberSource {
  /** For logs and docs: 'standalone', 'static', 'kubernetes'. */
  readonly name: string;
  /** Resolves once the first set of members is known. */
  ready(): Promise<void>;
  /** The members that exist now. The pool calls this once, then follows `subscribe`. */
  members(): readonly MemberInit[];
  /** How many members the pool should have (sum of replicas, or the number of static endpoints). */
  desired(): number;
  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: (change: MemberChange) => void): () => void;
  /** Stops following changes. Members already handed over are the pool's to close. */
  close(): Promise<void>;
}
