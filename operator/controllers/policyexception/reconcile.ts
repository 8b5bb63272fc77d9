/**
 * The PolicyException reconciler: nothing is deployed (the runtimes read the exceptions themselves). It validates
 * the object with api/validate.ts, as the runtimes' sources do, so that what the CRD cannot say (expiresAt at most
 * 90 days after creation; expiresAt or permanent, where the API server runs no CEL) reads as Ready=False; sets
 * `Expired` once expiresAt passes, with an Event; and asks to run again at the expiry, so that both conditions flip
 * then with nothing else changing. The operator is the only writer of the status: a merge patch.
 */
import { ConditionType, findCondition, Reason, type Condition } from '../../../api/conditions.js';
import type { PolicyExceptionResource } from '../../../api/resources.js';
import { validateManifest } from '../../../api/validate.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { Cache, ControllerContext, Reconciler, ReconcileRequest, ReconcileResult } from '../../manager/types.js';
import { announce, nextConditions } from '../status.js';
import { exceptionConditions, isExpired, requeueAfterMs, type ExceptionFacts } from './checks.js';

type ExceptionObject = KubeObject & {
  spec?: Partial<PolicyExceptionResource['spec']>;
  status?: Record<string, unknown>;
};

export class PolicyExceptionReconciler implements Reconciler {
  constructor(private readonly ctx: ControllerContext) {}

  async reconcile(req: ReconcileRequest): Promise<ReconcileResult | void> {
    const raw = this.ctx.cache.get<ExceptionObject>(Resources.PolicyException, req.namespace, req.name);
    if (!raw || raw.metadata.deletionTimestamp) return;
    const now = this.ctx.now();
    const facts = this.gather(raw, now);
    const before = raw.status?.conditions as Condition[] | undefined;
    const conditions = nextConditions(before, exceptionConditions(facts), raw.metadata.generation, now);
    const written = await patchStatus(
      this.ctx.client,
      Resources.PolicyException,
      raw,
      { conditions, observedGeneration: raw.metadata.generation },
      { signal: req.signal },
    );
    if (written === 'updated') {
      announce(this.ctx.events, raw, before, conditions, req.signal);
      if (isExpired(facts) && findCondition(before, ConditionType.Expired)?.status !== 'True') {
        const policies = facts.policies.join(', ');
        const message = `expired at ${facts.expiresAt}: calls are no longer exempt from ${policies}`;
        this.ctx.events.event(raw, 'Normal', Reason.Expired, message, req.signal);
      }
    }
    const after = requeueAfterMs(facts);
    return after === undefined ? undefined : { requeueAfterMs: after };
  }

  /** The facts, from the object and the namespace's Policies in the cache. */
  private gather(raw: ExceptionObject, now: Date): ExceptionFacts {
    const { managedFields: _managed, ...metadata } = raw.metadata;
    const result = validateManifest({ ...raw, metadata }, { now });
    const spec = raw.spec ?? {};
    const policies = Array.isArray(spec.policies) ? spec.policies.filter((p) => typeof p === 'string') : [];
    return {
      issues: result.errors,
      policies,
      expiresAt: typeof spec.expiresAt === 'string' ? spec.expiresAt : undefined,
      permanent: spec.permanent === true,
      missingPolicies: policies.filter((p) => !this.ctx.cache.get(Resources.Policy, raw.metadata.namespace!, p)),
      now,
    };
  }
}

/** The exceptions of the Policy's namespace that name it: a Policy created or deleted changes their message. */
export const exceptionsOfPolicy =
  (cache: Cache) =>
  (policy: KubeObject): string[] =>
    cache
      .list<ExceptionObject>(Resources.PolicyException, policy.metadata.namespace)
      .filter((e) => Array.isArray(e.spec?.policies) && e.spec.policies.includes(policy.metadata.name!))
      .map((e) => `${e.metadata.namespace}/${e.metadata.name}`);
