import { describe, expect, it } from 'vitest';
import { eventually } from '../../../testing/eventually.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { isAborted, KubeApiError } from '../errors.js';
import { Resources } from '../resources.js';

const kube = useTestCluster({ client: 'client-test' });

const GETS = { verb: 'get', resource: 'configmaps' } as const;

/** Starts a get of ConfigMap `a` with a signal; returns its outcome (the error it rejects with) and the abort. */
function pendingGet(): { outcome: Promise<unknown>; abort: (reason: unknown) => void } {
  const ac = new AbortController();
  const outcome = kube.client.get(Resources.ConfigMap, 'default', 'a', { signal: ac.signal }).catch((e: unknown) => e);
  return { outcome, abort: (reason) => ac.abort(reason) };
}

describe('KubeClient cancellation', () => {
  it('rejects a call waiting out a 429 with Aborted, carrying the reason, and does not retry it', async () => {
    kube.cluster.faults.inject({ ...GETS, status: 429, retryAfterSeconds: 30 });
    const { outcome, abort } = pendingGet();
    await eventually(() => expect(kube.cluster.requests.count(GETS)).toBe(1));
    const reason = new Error('leadership lost');
    abort(reason);
    const err = await outcome;
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ code: 0, reason: 'Aborted', cause: reason });
    expect(isAborted(err)).toBe(true);
    expect(kube.cluster.requests.count(GETS)).toBe(1);
  });

  it('rejects a request in flight with Aborted, not Timeout or ConnectionFailed', async () => {
    kube.cluster.faults.latency(10_000, GETS);
    const { outcome, abort } = pendingGet();
    await eventually(() => expect(kube.cluster.requests.count(GETS)).toBe(1));
    abort(new Error('stopping'));
    expect(await outcome).toMatchObject({ code: 0, reason: 'Aborted' });
    expect(kube.cluster.requests.count(GETS)).toBe(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const ended = AbortSignal.abort(new Error('stopped'));
    const err = await kube.client
      .create(
        Resources.ConfigMap,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } },
        { signal: ended },
      )
      .catch((e: unknown) => e);
    expect(isAborted(err)).toBe(true);
    expect(kube.cluster.requests.count({ verb: 'create', resource: 'configmaps' })).toBe(0);
  });

  it('answers as before when the signal is not aborted', async () => {
    const ac = new AbortController();
    expect(await kube.client.tryGet(Resources.ConfigMap, 'default', 'missing', { signal: ac.signal })).toBeUndefined();
    expect(await kube.client.delete(Resources.ConfigMap, 'default', 'missing', { signal: ac.signal })).toBe(false);
  });
});
