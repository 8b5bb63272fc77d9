/**
 * The Policy reconciler: nothing is deployed. It compiles the Rego with the gateway's engine, or finds the wasm
 * bundle (and its ConfigMap) (`Compiled`),
 * removes the `status.byPod` entries of gateway pods that are gone, and sets `Ready` when every running gateway
 * pod has loaded the current generation. Gateway pods write their own byPod entries concurrently, so the status
 * is replaced with the resourceVersion read and recomputed from a fresh read on 409 (`updateStatus`).
 */
import { LABELS } from '../../../api/constants.js';
import type { Condition } from '../../../api/conditions.js';
import type { PolicyResource } from '../../../api/resources.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { updateStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest } from '../../manager/types.js';
import { policies } from '../parse.js';
import { announce, nextConditions } from '../status.js';
import { compiledCondition, prunedByPod, readyCondition } from './checks.js';
import { CompileCache, moduleName } from './compile.js';
import { configMapFacts } from './wasm.js';

type PodObject = KubeObject & { status?: { phase?: string } };

/** Pods that load Policies: the Steward gateways. */
export function isRunningGateway(pod: PodObject): boolean {
  const l = pod.metadata.labels ?? {};
  return (
    l[LABELS.name] === 'steward' &&
    l[LABELS.component] === 'gateway' &&
    pod.status?.phase === 'Running' &&
    !pod.metadata.deletionTimestamp
  );
}

export class PolicyReconciler implements Reconciler {
  private readonly compiled = new CompileCache();

  constructor(private readonly ctx: ControllerContext) {}

  async reconcile(req: ReconcileRequest): Promise<void> {
    const raw = this.ctx.cache.get<KubeObject>(Resources.Policy, req.namespace, req.name);
    if (!raw || raw.metadata.deletionTimestamp) return;
    const pods = this.ctx.cache.list<PodObject>(Resources.Pod, req.namespace);
    const existing = new Set(pods.map((p) => p.metadata.name!));
    const gateways = pods.filter(isRunningGateway).map((p) => p.metadata.name!);
    const now = this.ctx.now();
    let before: Condition[] | undefined;
    let after: Condition[] = [];
    let subject: KubeObject = raw;

    const compute = (fresh: KubeObject): PolicyResource['status'] | undefined => {
      const p = policies.parse(fresh);
      const status = p.status ?? {};
      const generation = p.metadata.generation ?? 0;
      const module = moduleName(p.metadata.name);
      const error =
        p.spec.rego === undefined
          ? undefined
          : this.compiled.compileError(p.metadata.name, p.spec.rego, p.spec.regoVersion);
      const compiled = compiledCondition(p.spec, module, error, configMapFacts(this.ctx.cache, p.spec, req.namespace));
      const byPod = prunedByPod(status.byPod, existing);
      before = status.conditions;
      after = nextConditions(
        status.conditions,
        [compiled, readyCondition(compiled, generation, gateways, byPod)],
        p.metadata.generation,
        now,
      );
      subject = fresh;
      return { ...status, conditions: after, observedGeneration: p.metadata.generation, ...(byPod ? { byPod } : {}) };
    };
    const written = await updateStatus(this.ctx.client, Resources.Policy, req.namespace, req.name, compute, {
      current: raw as KubeObject & { status?: unknown },
      signal: req.signal,
    });
    if (written === 'updated') announce(this.ctx.events, subject, before, after, req.signal);
  }
}
