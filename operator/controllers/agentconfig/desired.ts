/**
 * What an AgentConfig `A` should have (docs/cluster-mode.md): Deployment and Service `A-agent` running
 * `steward agent` with the image and ServiceAccount of the Orchestrator `O` whose pool it is in. Pure:
 * imports only api/ and types.
 */
import { LABELS } from '../../../api/constants.js';
import type { AgentConfigResource, OrchestratorResource } from '../../../api/resources.js';
import { agentEnv } from '../env.js';
import { AGENT_LABEL, controllerRef, names, stewardLabels } from '../meta.js';
import { desiredDeployment, desiredService, type DesiredDeployment, type DesiredService } from '../workload.js';

export interface AgentInputs {
  /** The Orchestrator's image (`imageOf`). */
  image: string;
  /** Replicas after the License node cap. */
  replicas: number;
  /** Hash of the shared settings and the Secrets the agent reads (`O-internal`, LLM keys). */
  configHash: string;
}

/**
 * Pods of agent `a`. NB: without `app.kubernetes.io/instance`: a Deployment's selector cannot change, and the
 * agent may move to another Orchestrator's pool.
 */
export function agentSelector(a: AgentConfigResource): Record<string, string> {
  return { [LABELS.name]: 'steward', [LABELS.component]: 'agent', [AGENT_LABEL]: a.metadata.name };
}

export function desiredAgent(
  a: AgentConfigResource,
  o: OrchestratorResource,
  inputs: AgentInputs,
): { deployment: DesiredDeployment; service: DesiredService } {
  const common = {
    name: names.agent(a.metadata.name),
    namespace: a.metadata.namespace!,
    component: 'agent' as const,
    labels: stewardLabels(o.metadata.name, 'agent', a.metadata.name),
    selector: agentSelector(a),
    owner: controllerRef(a),
  };
  return {
    deployment: desiredDeployment({
      ...common,
      replicas: inputs.replicas,
      image: inputs.image,
      pullPolicy: o.spec.image.pullPolicy,
      serviceAccountName: names.runtime(o.metadata.name),
      env: agentEnv(o, { name: a.metadata.name, namespace: a.metadata.namespace! }),
      configHash: inputs.configHash,
    }),
    service: desiredService(common),
  };
}
