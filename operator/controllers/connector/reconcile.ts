/**
 * The Connector reconciler: checks that `spec.connection.secretRef` resolves and reflects the gateway's health
 * checks in `Ready`. The gateway owns `status.{status, lastHealthCheck, latencyMs, message}`; the operator
 * merge-patches only conditions and observedGeneration.
 */
import type { Condition } from '../../../api/conditions.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest } from '../../manager/types.js';
import { secretProblem } from '../checks.js';
import { connectors } from '../parse.js';
import { announce, nextConditions } from '../status.js';
import { connectorConditions } from './checks.js';

export class ConnectorReconciler implements Reconciler {
  constructor(private readonly ctx: ControllerContext) {}

  async reconcile(req: ReconcileRequest): Promise<void> {
    const raw = this.ctx.cache.get<KubeObject & { status?: Record<string, unknown> }>(
      Resources.Connector,
      req.namespace,
      req.name,
    );
    if (!raw || raw.metadata.deletionTimestamp) return;
    const c = connectors.parse(raw);
    const ref = c.spec.connection.secretRef;
    const secret = ref
      ? this.ctx.cache.get<KubeObject & { data?: Record<string, string> }>(Resources.Secret, req.namespace, ref.name)
      : undefined;
    const facts = {
      secretRef: ref,
      secretProblem: ref ? secretProblem(ref, secret) : undefined,
      health: c.status?.status,
      healthMessage: c.status?.message,
      name: c.metadata.name,
      tools: c.status?.tools,
    };
    const before = c.status?.conditions as Condition[] | undefined;
    const conditions = nextConditions(before, connectorConditions(facts), c.metadata.generation, this.ctx.now());
    const written = await patchStatus(
      this.ctx.client,
      Resources.Connector,
      raw,
      { conditions, observedGeneration: c.metadata.generation },
      { signal: req.signal },
    );
    if (written === 'updated') announce(this.ctx.events, raw, before, conditions, req.signal);
  }
}
