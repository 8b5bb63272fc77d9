/**
 * Pure relations between the kinds of one namespace: which Orchestrator an AgentConfig belongs to, and the
 * License node cap over an Orchestrator's installation. The Orchestrator and AgentConfig controllers both use
 * them, so they agree on pool membership and on every replica count.
 */
import type { AgentConfigResource, LicenseResource, OrchestratorResource } from '../../api/resources.js';
import { capReplicas, type CapAllocation } from './cap.js';
import { selects } from './meta.js';

/** The Orchestrator whose agentPool selects the agent: the first by name when several do (docs/cluster-mode.md). */
export function poolOwner(
  agent: AgentConfigResource,
  orchestrators: readonly OrchestratorResource[],
): OrchestratorResource | undefined {
  return [...orchestrators]
    .filter((o) => !o.metadata.deletionTimestamp)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .find((o) => selects(o.spec.agentPool?.selector, agent.metadata.labels));
}

/** The AgentConfigs in `orchestrator`'s pool (those whose pool owner it is). */
export function poolMembers(
  orchestrator: OrchestratorResource,
  agents: readonly AgentConfigResource[],
  orchestrators: readonly OrchestratorResource[],
): AgentConfigResource[] {
  return agents.filter((a) => poolOwner(a, orchestrators)?.metadata.name === orchestrator.metadata.name);
}

export interface NodeCap {
  license: string;
  maxNodes: number;
  allocation: CapAllocation;
}

/**
 * The cap over the installation `orchestrator` belongs to: undefined when it names no License, or the License has
 * no `status.maxNodes` (yet). The total counts every Orchestrator referencing the same License and their pools.
 */
export function nodeCap(
  orchestrator: OrchestratorResource,
  orchestrators: readonly OrchestratorResource[],
  agents: readonly AgentConfigResource[],
  licenses: readonly LicenseResource[],
): NodeCap | undefined {
  const license = orchestrator.spec.licenseRef?.name;
  if (license === undefined) return undefined;
  const maxNodes = licenses.find((l) => l.metadata.name === license)?.status?.maxNodes;
  if (maxNodes === undefined) return undefined;
  const covered = orchestrators.filter((o) => o.spec.licenseRef?.name === license && !o.metadata.deletionTimestamp);
  const members = agents.filter((a) =>
    covered.some((o) => o.metadata.name === poolOwner(a, orchestrators)?.metadata.name),
  );
  const allocation = capReplicas(maxNodes, {
    orchestrators: covered.map((o) => ({
      name: o.metadata.name,
      gateway: o.spec.gateway.replicas,
      orchestrator: o.spec.orchestrator.replicas,
    })),
    agents: members.map((a) => ({ name: a.metadata.name, replicas: a.spec.replicas })),
  });
  return { license, maxNodes, allocation };
}
