/**
 * The Budget reconciler: nothing is deployed (the gateways enforce the Budgets themselves, and the holder of their
 * status Lease writes the spend: runtime/cluster/budget-status.ts). It validates the object with api/validate.ts, as
 * the runtimes' sources do, so that what the CRD cannot say (a time zone the runtimes do not know; exactly one of
 * period and hours, where the API server runs no CEL) reads as Ready=False with the reason, and a Warning Event.
 * The operator writes only `conditions` and `observedGeneration`: a merge patch, beside the gateway's fields.
 */
import { isValidTimeZone } from '../../../api/budget.js';
import type { Condition } from '../../../api/conditions.js';
import type { BudgetResource } from '../../../api/resources.js';
import { validateManifest } from '../../../api/validate.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest } from '../../manager/types.js';
import { announce, nextConditions } from '../status.js';
import { budgetConditions, type BudgetFacts } from './checks.js';

type BudgetObject = KubeObject & { spec?: { window?: { timeZone?: unknown } }; status?: Record<string, unknown> };

export class BudgetReconciler implements Reconciler {
  constructor(private readonly ctx: ControllerContext) {}

  async reconcile(req: ReconcileRequest): Promise<void> {
    const raw = this.ctx.cache.get<BudgetObject>(Resources.Budget, req.namespace, req.name);
    if (!raw || raw.metadata.deletionTimestamp) return;
    const now = this.ctx.now();
    const before = raw.status?.conditions as Condition[] | undefined;
    const conditions = nextConditions(before, budgetConditions(gather(raw, now)), raw.metadata.generation, now);
    const written = await patchStatus(
      this.ctx.client,
      Resources.Budget,
      raw,
      { conditions, observedGeneration: raw.metadata.generation },
      { signal: req.signal },
    );
    if (written === 'updated') announce(this.ctx.events, raw, before, conditions, req.signal);
  }
}

/** The facts, from the object alone. */
function gather(raw: BudgetObject, now: Date): BudgetFacts {
  const { managedFields: _managed, ...metadata } = raw.metadata;
  const result = validateManifest({ ...raw, metadata }, { now });
  const zone = raw.spec?.window?.timeZone;
  const timeZone = typeof zone === 'string' ? zone : 'UTC';
  return {
    issues: result.errors,
    timeZone,
    timeZoneKnown: isValidTimeZone(timeZone),
    ...(result.valid && result.resource?.kind === 'Budget' ? { spec: (result.resource as BudgetResource).spec } : {}),
  };
}
