/**
 * Conditions and the Events that announce them. Conditions go through api/conditions.ts `setCondition`
 * (observedGeneration set, lastTransitionTime kept while the status holds). An Event is recorded only when a
 * condition *turns* to a problem reason, so a steady state writes nothing, Events included.
 */
import { ConditionType, Reason, setCondition, type Condition, type ConditionInput } from '../../api/conditions.js';
import type { KubeObject } from '../../platform/kube/client.js';
import { isAborted, isConflict } from '../../platform/kube/errors.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import { patchStatus } from '../../platform/kube/status.js';
import type { ControllerContext, EventRecorder } from '../manager/types.js';

/** `current` with every input set. */
export function nextConditions(
  current: readonly Condition[] | undefined,
  inputs: readonly ConditionInput[],
  generation: number | undefined,
  now: Date,
): Condition[] {
  return inputs.reduce<Condition[]>(
    (list, input) => setCondition(list, input, generation, now),
    current ? [...current] : [],
  );
}

/** Reasons a user should hear about as a Warning Event when a condition turns to them. */
export const WARNING_REASONS: ReadonlySet<string> = new Set([
  Reason.LicenseInvalid,
  Reason.NodeLimitExceeded,
  Reason.CompileFailed,
  Reason.SecretMissing,
  Reason.ConfigMapMissing,
  Reason.DatabaseUnreachable,
  Reason.ReconcileFailed,
  Reason.NoOrchestrator,
  Reason.HealthCheckFailed,
  Reason.PoolUnhealthy,
  Reason.InvalidSpec,
  Reason.UnknownTimeZone,
  Reason.ToolDefinitionChanged,
]);

/** The conditions of `after` whose problem reason is new (absent, or another reason or status, in `before`). */
export function newProblems(before: readonly Condition[] | undefined, after: readonly Condition[]): Condition[] {
  return after.filter((c) => {
    if (!WARNING_REASONS.has(c.reason)) return false;
    const was = before?.find((b) => b.type === c.type);
    return !was || was.reason !== c.reason || was.status !== c.status;
  });
}

/** Records a Warning Event for each new problem (dropped once `signal`, the reconcile's, aborts); returns how many. */
export function announce(
  events: EventRecorder,
  obj: KubeObject,
  before: readonly Condition[] | undefined,
  after: readonly Condition[],
  signal?: AbortSignal,
): number {
  const fresh = newProblems(before, after);
  for (const c of fresh) events.event(obj, 'Warning', c.reason, c.message || c.reason, signal);
  return fresh.length;
}

/**
 * After applying threw: Ready=False ReconcileFailed with the API server's message (and its Warning Event). The
 * caller rethrows, so the reconcile is retried. NB: a 409 only means the cache was behind; its retry is routine,
 * not a failure a user should see, so it writes nothing; nor does an apply cut by `signal` (the reconcile's), which
 * is no failure at all.
 */
export async function reportApplyFailure(
  ctx: ControllerContext,
  ref: ResourceRef,
  obj: KubeObject & { status?: Record<string, unknown> },
  err: unknown,
  signal?: AbortSignal,
): Promise<void> {
  if (isConflict(err) || isAborted(err)) return;
  const before = obj.status?.conditions as Condition[] | undefined;
  const ready: ConditionInput = {
    type: ConditionType.Ready,
    status: 'False',
    reason: Reason.ReconcileFailed,
    message: err instanceof Error ? err.message : String(err),
  };
  const conditions = nextConditions(before, [ready], obj.metadata.generation, ctx.now());
  if (
    (await patchStatus(
      ctx.client,
      ref,
      obj,
      { conditions, observedGeneration: obj.metadata.generation },
      { signal },
    )) === 'updated'
  )
    announce(ctx.events, obj, before, conditions, signal);
}
