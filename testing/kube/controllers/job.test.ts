import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { useControllerCluster } from './fixtures.js';
import { arr, obj } from './util.js';

const { cluster, controllers, api } = useControllerCluster();

describe('Job controller', () => {
  function job(name: string, spec: JsonObject = {}, restartPolicy = 'Never'): JsonObject {
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'default' },
      spec: { template: { spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox' }] } }, ...spec },
    };
  }

  function jobPods(name: string): JsonObject[] {
    return api().list('pods', { namespace: 'default', labelSelector: `batch.kubernetes.io/job-name=${name}` }).items;
  }

  function finish(pod: JsonObject, phase: 'Succeeded' | 'Failed'): void {
    api().updateStatus('pods', { ...pod, status: { ...obj(pod.status), phase } });
  }

  function runningPods(name: string): JsonObject[] {
    return jobPods(name).filter((p) => !['Succeeded', 'Failed'].includes(String(obj(p.status).phase)));
  }

  it('runs parallelism pods until completions succeed, then reports Complete', async () => {
    api().create('jobs.batch', job('hook', { completions: 3, parallelism: 2 }));
    await controllers().idle();
    expect(runningPods('hook')).toHaveLength(2);
    for (let i = 0; i < 5 && runningPods('hook').length; i++) {
      for (const p of runningPods('hook')) finish(p, 'Succeeded');
      await controllers().idle();
    }
    const j = api().get('jobs.batch', 'default', 'hook');
    expect(j.status).toMatchObject({ succeeded: 3, completionTime: expect.any(String) as unknown });
    expect(arr(obj(j.status).conditions).map((c) => [obj(c).type, obj(c).status, obj(c).reason])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ]);
    expect(jobPods('hook')).toHaveLength(3);
    expect(
      api().list('events', { namespace: 'default', fieldSelector: 'involvedObject.kind=Job,reason=SuccessfulCreate' })
        .items,
    ).toHaveLength(3);
  });

  it('fails the Job once more pods failed than backoffLimit', async () => {
    api().create('jobs.batch', job('hook', { backoffLimit: 1 }));
    await controllers().idle();
    for (let i = 0; i < 5 && runningPods('hook').length; i++) {
      for (const p of runningPods('hook')) finish(p, 'Failed');
      await controllers().idle();
    }
    const j = api().get('jobs.batch', 'default', 'hook');
    expect(j.status).toMatchObject({ failed: 2 });
    expect(arr(obj(j.status).conditions)).toContainEqual(
      expect.objectContaining({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }),
    );
  });

  it('deletes a finished Job after ttlSecondsAfterFinished on the cluster clock', async () => {
    cluster().clock.freeze();
    api().create('jobs.batch', job('hook', { ttlSecondsAfterFinished: 60 }));
    await controllers().idle();
    finish(runningPods('hook')[0]!, 'Succeeded');
    await controllers().idle();
    expect(api().tryGet('jobs.batch', 'default', 'hook')).toBeDefined();
    cluster().clock.advance(61_000);
    controllers().resync();
    await controllers().idle();
    expect(api().tryGet('jobs.batch', 'default', 'hook')).toBeUndefined();
    expect(jobPods('hook')).toEqual([]);
  });

  it('suspends (pods deleted, Suspended=True) and resumes', async () => {
    api().create('jobs.batch', job('hook', { parallelism: 2, completions: 2 }));
    await controllers().idle();
    expect(runningPods('hook')).toHaveLength(2);
    api().patch('jobs.batch', 'default', 'hook', { spec: { suspend: true } });
    await controllers().idle();
    expect(runningPods('hook')).toEqual([]);
    expect(arr(obj(api().get('jobs.batch', 'default', 'hook').status).conditions)).toMatchObject([
      { type: 'Suspended', status: 'True', reason: 'JobSuspended' },
    ]);
    api().patch('jobs.batch', 'default', 'hook', { spec: { suspend: false } });
    await controllers().idle();
    expect(runningPods('hook')).toHaveLength(2);
    expect(arr(obj(api().get('jobs.batch', 'default', 'hook').status).conditions)).toMatchObject([
      { type: 'Suspended', status: 'False', reason: 'JobResumed' },
    ]);
  });

  it('refuses a template with restartPolicy Always', () => {
    expect(() => api().create('jobs.batch', job('bad', {}, 'Always'))).toThrow(
      /restartPolicy.*Unsupported value: "Always"/,
    );
  });
});
