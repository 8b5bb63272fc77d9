import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import type { KubeObject } from '../client.js';
import { LeaderElector, type LeaderElectorOptions } from '../leader.js';
import { leaseExpired, leaseSpec, microTime, type LeaseSpec } from '../lease.js';
import { Resources } from '../resources.js';
import { eventually } from '../../../testing/eventually.js';

const kube = useTestCluster({ client: 'leader-test' });
const electors: LeaderElector[] = [];
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

afterEach(async () => {
  kube.cluster.faults.clear();
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

interface Candidate {
  elector: LeaderElector;
  stopped: ('lost' | 'stopped')[];
  signals: AbortSignal[];
}

function candidate(identity: string, opts: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Candidate = { elector: undefined as never, stopped: [], signals: [] };
  c.elector = new LeaderElector({
    client: kube.client,
    namespace: 'default',
    name: 'test-lease',
    identity,
    leaseDurationMs: 2000,
    renewDeadlineMs: 1500,
    retryPeriodMs: 100,
    log,
    onStartedLeading: (signal) => c.signals.push(signal),
    onStoppedLeading: (how) => c.stopped.push(how),
    ...opts,
  });
  electors.push(c.elector);
  c.elector.start();
  return c;
}

const lease = async () =>
  (await kube.client.tryGet<KubeObject & { spec: LeaseSpec }>(Resources.Lease, 'default', 'test-lease'))?.spec;

describe('lease judgements', () => {
  it.each([
    { name: 'a Lease nobody holds is free', spec: { holderIdentity: '' }, expired: true },
    {
      name: 'a Lease renewed within its duration is held',
      spec: leaseSpec('a', 15_000, new Date('2026-01-01T00:00:00Z')),
      expired: false,
    },
    {
      name: 'a Lease not renewed for longer than its duration is expired',
      spec: leaseSpec('a', 5_000, new Date('2025-12-31T23:59:50Z')),
      expired: true,
    },
  ])('$name', ({ spec, expired }) => {
    expect(leaseExpired(spec, new Date('2026-01-01T00:00:01Z'))).toBe(expired);
  });

  it('writes MicroTime with six fractional digits and rounds the duration up to whole seconds', () => {
    expect(microTime(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678000Z');
    expect(leaseSpec('a', 1500, new Date()).leaseDurationSeconds).toBe(2);
  });
});

describe('LeaderElector', () => {
  it('creates the absent Lease, renews it, and releases it on a graceful stop', async () => {
    const a = candidate('a');
    await eventually(() => expect(a.elector.isLeader).toBe(true));
    const first = await lease();
    expect(first).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 2, leaseTransitions: 0 });
    await eventually(async () => expect((await lease())!.renewTime).not.toBe(first!.renewTime));
    await a.elector.stop();
    expect(a.signals[0]!.aborted).toBe(true);
    expect(a.stopped).toEqual(['stopped']);
    expect((await lease())!.holderIdentity).toBe('');
  });

  it('lets one of two racing candidates lead, and the other take over at once when the leader releases', async () => {
    // A long lease: had the Lease not been released, the takeover would come after the test's deadline.
    const timings = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 100 };
    const a = candidate('a', timings);
    const b = candidate('b', timings);
    await eventually(() => expect([a, b].filter((c) => c.elector.isLeader)).toHaveLength(1));
    const [leader, standby] = a.elector.isLeader ? [a, b] : [b, a];
    await eventually(() => expect(standby.elector.leader).toBe(leader === a ? 'a' : 'b'));
    expect(standby.elector.isLeader).toBe(false);
    await leader.elector.stop();
    await eventually(() => expect(standby.elector.isLeader).toBe(true), 10_000);
    expect(await lease()).toMatchObject({ holderIdentity: leader === a ? 'b' : 'a', leaseTransitions: 1 });
  });

  it('takes over a Lease its crashed holder stopped renewing once it expires, not before', async () => {
    const a = candidate('a');
    await eventually(() => expect(a.elector.isLeader).toBe(true));
    await a.elector.stop({ release: false });
    const left = await lease();
    expect(left!.holderIdentity).toBe('a');
    const b = candidate('b');
    await eventually(() => expect(b.elector.isLeader).toBe(true));
    const taken = await lease();
    expect(taken!.holderIdentity).toBe('b');
    expect(Date.parse(taken!.acquireTime!)).toBeGreaterThanOrEqual(Date.parse(left!.renewTime!) + 2000);
  });

  it('stops leading and aborts its signal when it cannot renew before the renew deadline', async () => {
    const a = candidate('a');
    await eventually(() => expect(a.elector.isLeader).toBe(true));
    kube.cluster.faults.inject({ verb: ['get', 'update'], resource: 'leases', status: 500, times: 1_000_000 });
    await eventually(() => expect(a.stopped).toEqual(['lost']));
    expect(a.elector.isLeader).toBe(false);
    expect(a.signals[0]!.aborted).toBe(true);
  });

  it('refuses timings where a leader could outlive its Lease', () => {
    expect(() => candidate('x', { leaseDurationMs: 1000, renewDeadlineMs: 1000 })).toThrow(RangeError);
  });
});
