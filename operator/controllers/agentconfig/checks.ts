/** The AgentConfig's `Ready` and `Degraded` conditions, judged from gathered facts by ordered pure checks. */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { judge, type Check } from '../checks.js';

export interface AgentFacts {
  /** The Orchestrator whose pool the agent is in; undefined: none selects it. */
  orchestrator?: string;
  /** Replicas asked for and granted under the License node cap. */
  requested: number;
  wanted: number;
  ready: number;
  /** A Secret of the Orchestrator the pods need and the cache does not have yet (`O-internal`). */
  missingSecret?: string;
  /** The License that limited the replicas, with its cap. */
  limitedBy?: { license: string; maxNodes: number };
}

export const hasOrchestrator: Check<AgentFacts> = (f) =>
  f.orchestrator === undefined
    ? { reason: Reason.NoOrchestrator, message: "no Orchestrator's spec.agentPool.selector selects this AgentConfig" }
    : undefined;

export const orchestratorSetUp: Check<AgentFacts> = (f) =>
  f.missingSecret
    ? {
        reason: Reason.OrchestratorPending,
        message: `waiting for Orchestrator ${f.orchestrator} to create Secret ${f.missingSecret}`,
      }
    : undefined;

export const replicasReady: Check<AgentFacts> = (f) =>
  f.ready < f.wanted
    ? { reason: Reason.ReplicasUnavailable, message: `${f.ready}/${f.wanted} agent pods ready` }
    : undefined;

export const withinNodeLimit: Check<AgentFacts> = (f) =>
  f.limitedBy && f.wanted < f.requested
    ? {
        reason: Reason.NodeLimitExceeded,
        message: `License ${f.limitedBy.license} allows ${f.limitedBy.maxNodes} Steward pods in the namespace: ${f.wanted} of ${f.requested} agent replicas created`,
      }
    : undefined;

export function agentConditions(f: AgentFacts): ConditionInput[] {
  const ready = judge(ConditionType.Ready, f, [hasOrchestrator, orchestratorSetUp, replicasReady], {
    reason: Reason.Reconciled,
    message: `${f.ready}/${f.wanted} agent pods ready`,
  });
  if (f.orchestrator === undefined) return [ready];
  return [
    ready,
    judge(ConditionType.Degraded, f, [withinNodeLimit], { reason: Reason.Reconciled, message: '' }, 'True'),
  ];
}
