import type { AgentStats } from '../../agent/work.js';
import type { MemberKind } from './member-source.js';

/**
 * A member's health. 'starting': a remote member not probed yet (not dispatched to). In-process members
 * are 'healthy' from the start; remote ones follow their probes and failed calls.
 */
export type MemberHealth = 'starting' | 'healthy' | 'unhealthy';

/** The pool's figures, as `GET /orchestrator/health` and the Orchestrator's `status.pool` show them. */
export interface PoolStatus {
  /** members the pool should have: the sum of the selected AgentConfigs' replicas, or the static endpoint count */
  desired: number;
  /** members that exist (not counting members being drained after removal) */
  available: number;
  /** available members that are healthy */
  healthy: number;
  /** available members that are not healthy (unhealthy, or remote members not probed yet) */
  unhealthy: number;
}

/**
 * Where the pool reports its status when it changes. Called only when a figure changed. (In a cluster the
 * Orchestrator's `status.pool` is written by runtime/cluster/pool-status.ts, which follows `AgentPool.onHealth`.)
 */
export interface PoolStatusReporter {
  report(status: PoolStatus): void | Promise<void>;
}

/** One member as `pool.members()` shows it (for /orchestrator/metrics agent_utilization). */
export interface PoolMemberView {
  /** the agent's id (`agent_id` in results and metrics) */
  id: string;
  /** the source's key, e.g. `default/travel-planner#0` or the endpoint */
  key: string;
  kind: MemberKind;
  agentConfig?: string;
  health: MemberHealth;
  /** removed by its source; finishing its items, then closed */
  draining: boolean;
  /** items the pool has dispatched to it and not yet seen finish (authoritative for dispatch) */
  inFlight: number;
  maxInFlight: number;
  /** the agent's last stats (remote: as of the last probe) */
  stats: AgentStats;
  /** why the member is unhealthy, from the failed call or probe */
  lastError?: string;
}
