/**
 * The Job controller: runs up to `parallelism` pods until `completions` succeed (or, without
 * completions, until one succeeds and none runs), fails the Job past `backoffLimit` failures or
 * `activeDeadlineSeconds`, writes status (startTime, active, ready, succeeded, failed, completionTime,
 * Complete/Failed conditions) and removes finished Jobs after `ttlSecondsAfterFinished` (the TTL
 * controller); `suspend` deletes the pods and sets Suspended. Failed pods are replaced at once (no
 * backoff delay); completionMode Indexed and podFailurePolicy are not simulated.
 */
import { setCondition } from '../kinds/index.js';
import { jsonEqual, type JsonObject } from '../schema/types.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import { recordEvent } from './events.js';
import type { ReconcileResult } from './queue.js';
import { podFromTemplate } from './replicaset.js';
import {
  arr,
  condition,
  isControlledBy,
  isDeleting,
  isPodActive,
  isPodReady,
  keyOf,
  meta,
  nameOf,
  obj,
  ownerKeys,
  splitKey,
  statusCode,
} from './util.js';

const COMPONENT = 'job-controller';
const MANAGER = 'kube-controller-manager';

/** Condition reasons the Job controller writes. */
export const JobReasons = {
  /** Complete/SuccessCriteriaMet: `completions` pods succeeded. */
  CompletionsReached: 'CompletionsReached',
  /** Failed/FailureTarget: more pods failed than `backoffLimit`. */
  BackoffLimitExceeded: 'BackoffLimitExceeded',
  /** Failed/FailureTarget: the Job ran longer than `activeDeadlineSeconds`. */
  DeadlineExceeded: 'DeadlineExceeded',
  /** Suspended=True: spec.suspend is true (its pods are deleted). */
  JobSuspended: 'JobSuspended',
  /** Suspended=False: spec.suspend went back to false. */
  JobResumed: 'JobResumed',
} as const;

function isFinished(job: JsonObject): boolean {
  return ['Complete', 'Failed'].some((t) => condition(job, t)?.status === 'True');
}

function restarts(pod: JsonObject): number {
  return arr(obj(pod.status).containerStatuses).reduce<number>((n, c) => n + Number(obj(c).restartCount ?? 0), 0);
}

export class JobController implements Reconciler {
  readonly name = 'job';
  readonly watches: WatchSpec[] = [
    { resource: 'jobs.batch', keys: (o) => [keyOf(o)] },
    { resource: 'pods', keys: (o) => ownerKeys(o, 'Job') },
  ];

  constructor(private readonly deps: ControllerDeps) {}

  reconcile(key: string): ReconcileResult | void {
    const { api } = this.deps;
    const [namespace, name] = splitKey(key);
    const job = api.tryGet('jobs.batch', namespace, name);
    if (!job || isDeleting(job)) return;
    if (isFinished(job)) return this.expire(job);
    const pods = api.list('pods', { namespace }).items.filter((p) => isControlledBy(p, job));
    const active = pods.filter(isPodActive);
    const old = obj(job.status);
    const spec = obj(job.spec);
    const succeeded = Math.max(
      Number(old.succeeded ?? 0),
      pods.filter((p) => obj(p.status).phase === 'Succeeded').length,
    );
    const failedPods = pods.filter((p) => obj(p.status).phase === 'Failed').length;
    const failed = Math.max(Number(old.failed ?? 0), failedPods);
    const onFailureRestarts =
      spec.template && obj(obj(spec.template).spec).restartPolicy === 'OnFailure'
        ? active.reduce((n, p) => n + restarts(p), 0)
        : 0;
    const now = this.deps.clock.now();
    const status: JsonObject = { ...(JSON.parse(JSON.stringify(old)) as JsonObject) };
    const suspended = spec.suspend === true;
    const wasSuspended = condition(job, 'Suspended')?.status === 'True';
    if (suspended && !wasSuspended) {
      setCondition(
        status,
        { type: 'Suspended', status: 'True', reason: JobReasons.JobSuspended, message: 'Job suspended' },
        this.deps.clock.nowIso(),
      );
      delete status.startTime; // a resumed Job starts its activeDeadlineSeconds again
    } else if (!suspended && wasSuspended) {
      setCondition(
        status,
        { type: 'Suspended', status: 'False', reason: JobReasons.JobResumed, message: 'Job resumed' },
        this.deps.clock.nowIso(),
      );
    }
    if (!status.startTime && !suspended) status.startTime = this.deps.clock.nowIso();

    const completions = spec.completions as number | undefined;
    const deadline = spec.activeDeadlineSeconds as number | undefined;
    let failure: [string, string] | undefined;
    if (failed + onFailureRestarts > Number(spec.backoffLimit ?? 6))
      failure = [JobReasons.BackoffLimitExceeded, 'Job has reached the specified backoff limit'];
    else if (
      deadline !== undefined &&
      status.startTime &&
      Date.parse(String(status.startTime)) + deadline * 1000 <= now
    ) {
      failure = [JobReasons.DeadlineExceeded, 'Job was active longer than specified deadline'];
    }
    const complete = completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;
    let stillActive = active;
    let requeueAfterMs: number | undefined;
    if (failure || complete || suspended) {
      this.deletePods(job, active);
      stillActive = [];
    } else {
      const parallelism = Number(spec.parallelism ?? 1);
      const want =
        completions !== undefined ? Math.min(parallelism, completions - succeeded) : succeeded > 0 ? 0 : parallelism;
      if (active.length < want) {
        for (let i = active.length; i < want; i++) stillActive = [...stillActive, this.createPod(job)];
      } else if (active.length > want) {
        const extra = active.slice(want);
        this.deletePods(job, extra);
        stillActive = active.slice(0, want);
      }
      if (deadline !== undefined && status.startTime)
        requeueAfterMs = Math.max(1, Date.parse(String(status.startTime)) + deadline * 1000 - now);
    }

    status.active = stillActive.length;
    status.ready = stillActive.filter(isPodReady).length;
    status.succeeded = succeeded;
    status.failed = failed;
    for (const k of ['active', 'succeeded', 'failed'] as const) if (status[k] === 0) delete status[k];
    const nowIso = this.deps.clock.nowIso();
    if (failure) {
      setCondition(status, { type: 'FailureTarget', status: 'True', reason: failure[0], message: failure[1] }, nowIso);
      setCondition(status, { type: 'Failed', status: 'True', reason: failure[0], message: failure[1] }, nowIso);
      this.event(job, 'Warning', failure[0], failure[1]);
    } else if (complete) {
      setCondition(
        status,
        {
          type: 'SuccessCriteriaMet',
          status: 'True',
          reason: JobReasons.CompletionsReached,
          message: 'Reached expected number of succeeded pods',
        },
        nowIso,
      );
      setCondition(
        status,
        {
          type: 'Complete',
          status: 'True',
          reason: JobReasons.CompletionsReached,
          message: 'Reached expected number of succeeded pods',
        },
        nowIso,
      );
      status.completionTime = nowIso;
      this.event(job, 'Normal', 'Completed', 'Job completed');
    }
    if (!jsonEqual(old, status)) api.updateStatus('jobs.batch', { ...job, status }, { fieldManager: MANAGER });
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /** ttlSecondsAfterFinished: delete the finished Job (and, in the background, its pods) when its time is up. */
  private expire(job: JsonObject): ReconcileResult | void {
    const ttl = obj(job.spec).ttlSecondsAfterFinished;
    if (typeof ttl !== 'number') return;
    const finished =
      condition(job, 'Complete')?.status === 'True' ? condition(job, 'Complete') : condition(job, 'Failed');
    const at = Date.parse(String(obj(job.status).completionTime ?? finished?.lastTransitionTime ?? '')) + ttl * 1000;
    const left = at - this.deps.clock.now();
    if (left > 0) return { requeueAfterMs: left };
    try {
      this.deps.api.delete('jobs.batch', String(meta(job).namespace), nameOf(job), {
        propagationPolicy: 'Background',
        preconditions: { uid: String(meta(job).uid) },
      });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  private createPod(job: JsonObject): JsonObject {
    const pod = this.deps.api.create('pods', podFromTemplate(job, 'Job', 'batch/v1'), { fieldManager: MANAGER });
    this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${nameOf(pod)}`);
    return pod;
  }

  private deletePods(job: JsonObject, pods: JsonObject[]): void {
    for (const p of pods) {
      try {
        this.deps.api.delete('pods', String(meta(p).namespace), nameOf(p), {
          preconditions: { uid: String(meta(p).uid) },
        });
      } catch (err) {
        if (statusCode(err) !== 404) throw err;
        continue;
      }
      this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${nameOf(p)}`);
    }
  }

  private event(job: JsonObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(
      this.deps.api,
      this.deps.clock,
      {
        regarding: { apiVersion: 'batch/v1', kind: 'Job', metadata: job.metadata },
        type,
        reason,
        message,
        component: COMPONENT,
      },
      this.deps.log,
    );
  }
}
