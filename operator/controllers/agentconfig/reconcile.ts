/**
 * The AgentConfig reconciler: finds the Orchestrator whose pool the agent is in, applies `A-agent`
 * (Deployment and Service) with the replicas the License node cap grants, and writes conditions,
 * observedGeneration and readyReplicas as a merge patch — `healthyAgents` belongs to the orchestrator runtime
 * and a merge patch of our fields never drops it.
 */
import { ConditionType, Reason, type Condition } from '../../../api/conditions.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest } from '../../manager/types.js';
import { createOrUpdate } from '../apply.js';
import { publicUrl, referencedSecrets, sharedSettings } from '../env.js';
import { agentCardPath } from '../../../api/a2a.js';
import { hashOf } from '../hash.js';
import { names } from '../meta.js';
import { imageOf } from '../orchestrator/desired.js';
import { agentConfigs, licenses, orchestrators } from '../parse.js';
import { nodeCap, poolOwner } from '../pool.js';
import { announce, nextConditions, reportApplyFailure } from '../status.js';
import { readyReplicas } from '../workload.js';
import type { ControllerSettings } from '../index.js';
import { agentConditions, type AgentFacts } from './checks.js';
import { desiredAgent } from './desired.js';

type SecretObject = KubeObject & { data?: Record<string, string> };

export class AgentConfigReconciler implements Reconciler {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly settings: ControllerSettings,
  ) {}

  async reconcile(req: ReconcileRequest): Promise<void> {
    const { cache, client } = this.ctx;
    const raw = cache.get<KubeObject & { status?: Record<string, unknown> }>(
      Resources.AgentConfig,
      req.namespace,
      req.name,
    );
    if (!raw || raw.metadata.deletionTimestamp) return;
    const a = agentConfigs.parse(raw);
    const ns = req.namespace;
    const before = raw.status?.conditions as Condition[] | undefined;
    const generation = a.metadata.generation;

    // Gather.
    const allOrchestrators = orchestrators.parseAll(cache.list(Resources.Orchestrator, ns));
    const owner = poolOwner(a, allOrchestrators);
    const deploymentName = names.agent(a.metadata.name);
    const ready = readyReplicas(cache.get(Resources.Deployment, ns, deploymentName));
    const facts: AgentFacts = {
      orchestrator: owner?.metadata.name,
      requested: a.spec.replicas,
      wanted: a.spec.replicas,
      ready,
    };

    // NB: the pods read the agent token from O-internal; a Deployment made before the Orchestrator made that Secret
    // would wait in CreateContainerConfigError, then roll once more when the Secret's hash joins the template. The
    // Secret's creation wakes this reconciler (agentsOfSecret).
    const internalSecret = owner ? names.internal(owner.metadata.name) : undefined;
    if (owner && !cache.get(Resources.Secret, ns, internalSecret!)) facts.missingSecret = internalSecret;

    if (owner && !facts.missingSecret) {
      const cap = nodeCap(
        owner,
        allOrchestrators,
        agentConfigs.parseAll(cache.list(Resources.AgentConfig, ns)),
        licenses.parseAll(cache.list(Resources.License, ns)),
      );
      facts.wanted = cap?.allocation.agents[a.metadata.name] ?? a.spec.replicas;
      if (cap) facts.limitedBy = { license: cap.license, maxNodes: cap.maxNodes };
      const secret = (name: string) => cache.get<SecretObject>(Resources.Secret, ns, name)?.data ?? null;
      // NB: the agent reads O-internal and the LLM keys, not the database or TLS Secrets, but hashing all the
      // Orchestrator's Secrets is simpler and costs only a rare extra rollout.
      const configHash = hashOf(
        sharedSettings(owner),
        secret(names.internal(owner.metadata.name)),
        referencedSecrets(owner).map((n) => [n, secret(n)]),
      );
      const desired = desiredAgent(a, owner, {
        image: imageOf(owner, this.settings.defaultImage),
        replicas: facts.wanted,
        configHash,
      });
      // NB: one Event for what a pass created, not one per object: each Event is an API write.
      const created: string[] = [];
      try {
        for (const [ref, obj] of [
          [Resources.Deployment, desired.deployment],
          [Resources.Service, desired.service],
        ] as const) {
          const result = await createOrUpdate(client, ref, obj, cache.get(ref, ns, obj.metadata.name), req.signal);
          if (result !== 'unchanged')
            req.log.info({ op: result, kind: ref.kind, object: obj.metadata.name }, 'object applied');
          if (result === 'created') created.push(`${ref.kind} ${obj.metadata.name}`);
        }
      } catch (err) {
        await reportApplyFailure(this.ctx, Resources.AgentConfig, raw, err, req.signal);
        throw err;
      } finally {
        if (created.length)
          this.ctx.events.event(raw, 'Normal', Reason.Created, `created ${created.join(' and ')}`, req.signal);
      }
    }

    // NB: without an Orchestrator the agent waits; a Degraded condition from an earlier pool is dropped.
    const kept = owner ? before : before?.filter((c) => c.type !== ConditionType.Degraded);
    const conditions = nextConditions(kept, agentConditions(facts), generation, this.ctx.now());
    const written = await patchStatus(
      client,
      Resources.AgentConfig,
      raw,
      {
        conditions,
        observedGeneration: generation,
        readyReplicas: ready,
        // NB: the card is on its Orchestrator's gateway; an agent in no pool has none.
        cardUrl: owner ? publicUrl(owner) + agentCardPath(a.metadata.name) : null,
      },
      { signal: req.signal },
    );
    if (written === 'updated') announce(this.ctx.events, raw, before, conditions, req.signal);
  }
}
