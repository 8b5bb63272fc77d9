import { describe, expect, it } from 'vitest';
import { WorkQueue } from './workqueue.js';
import { eventually } from '../../testing/eventually.js';

/** A promise the test resolves by hand: a reconcile that finishes when the test says so. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('WorkQueue', () => {
  it('queues a key added several times once', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('re-queues a key added while it is processed, after it is done, never handing it out twice at once', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    q.done(key!);
    await eventually(() => expect(second).toBe('a'));
  });

  it('runs at most one handler per key and at most N handlers at once', async () => {
    const q = new WorkQueue();
    const running = new Map<string, number>();
    let active = 0;
    let maxActive = 0;
    let overlaps = 0;
    const handled: string[] = [];
    q.run(3, async (key) => {
      active++;
      maxActive = Math.max(maxActive, active);
      if (running.get(key)) overlaps++;
      running.set(key, (running.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 2));
      running.set(key, running.get(key)! - 1);
      handled.push(key);
      active--;
    });
    for (let round = 0; round < 20; round++) {
      for (const key of ['a', 'b', 'c', 'd', 'e']) q.add(key);
      await new Promise((r) => setTimeout(r, 1));
    }
    await eventually(() => expect(q.length).toBe(0));
    await q.shutdown();
    expect(overlaps).toBe(0);
    expect(maxActive).toBeLessThanOrEqual(3);
    expect(new Set(handled)).toEqual(new Set(['a', 'b', 'c', 'd', 'e']));
  });

  it('doubles the delay with each failure up to the cap, and forget starts it again', () => {
    const q = new WorkQueue({ baseDelayMs: 5, maxDelayMs: 40 });
    const delays: number[] = [];
    const addAfter = q.addAfter.bind(q);
    q.addAfter = (key, ms) => {
      delays.push(ms);
      addAfter(key, ms);
    };
    for (let i = 0; i < 6; i++) q.addRateLimited('a');
    expect(delays).toEqual([5, 10, 20, 40, 40, 40]);
    expect(q.numRequeues('a')).toBe(6);
    q.forget('a');
    q.addRateLimited('a');
    expect(delays.at(-1)).toBe(5);
    void q.shutdown();
  });

  it('defaults to a 5 ms base delay capped at 5 minutes', () => {
    const q = new WorkQueue();
    const delays: number[] = [];
    q.addAfter = (_key, ms) => void delays.push(ms);
    for (let i = 0; i < 30; i++) q.addRateLimited('a');
    expect(delays[0]).toBe(5);
    expect(delays[1]).toBe(10);
    expect(delays.at(-1)).toBe(300_000);
  });

  it('adds a key after a delay, keeping the earliest of several delays', async () => {
    const q = new WorkQueue();
    q.addAfter('a', 60_000);
    q.addAfter('a', 10);
    q.addAfter('a', 120_000);
    expect(q.length).toBe(0);
    await eventually(() => expect(q.length).toBe(1));
    expect(await q.get()).toBe('a');
    await q.shutdown();
  });

  it('waits for work in flight on shutdown and hands out nothing more', async () => {
    const q = new WorkQueue();
    const g = gate();
    const started: string[] = [];
    let finished = false;
    q.run(1, async (key) => {
      started.push(key);
      await g.promise;
      finished = true;
    });
    q.add('a');
    q.add('b');
    await eventually(() => expect(started).toEqual(['a']));
    const stopped = q.shutdown();
    let resolved = false;
    void stopped.then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(resolved).toBe(false);
    g.open();
    await stopped;
    expect(finished).toBe(true);
    expect(started).toEqual(['a']);
    q.add('c');
    expect(await q.get()).toBeUndefined();
  });

  it('keeps a worker alive when its handler throws', async () => {
    const q = new WorkQueue();
    const handled: string[] = [];
    q.run(1, async (key) => {
      handled.push(key);
      if (key === 'bad') throw new Error('boom');
    });
    q.add('bad');
    q.add('good');
    await eventually(() => expect(handled).toEqual(['bad', 'good']));
    await q.shutdown();
  });

  it('counts adds of keys not already waiting and retries, into counts that outlive the queue', async () => {
    const counts = { adds: 0, retries: 0 };
    const q = new WorkQueue({ counts, baseDelayMs: 1 });
    q.add('a');
    q.add('a');
    q.add('b');
    q.addRateLimited('c');
    expect(counts).toEqual({ adds: 2, retries: 1 });
    await eventually(() => expect(counts.adds).toBe(3));
    await q.shutdown();
    const next = new WorkQueue({ counts });
    next.add('a');
    expect(counts.adds).toBe(4);
    await next.shutdown();
  });

  it('reports its depth and how long the keys being processed have been', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('c');
    expect(q.state()).toEqual({ depth: 3, processing: 0, longestRunningMs: 0, unfinishedWorkMs: 0 });
    await q.get();
    await q.get();
    const state = q.state(performance.now() + 1000);
    expect(state).toMatchObject({ depth: 1, processing: 2 });
    expect(state.longestRunningMs).toBeGreaterThanOrEqual(1000);
    expect(state.unfinishedWorkMs).toBeGreaterThanOrEqual(2000);
    expect(state.unfinishedWorkMs).toBeGreaterThan(state.longestRunningMs);
    q.done('a');
    expect(q.state().processing).toBe(1);
    await q.shutdown();
  });
});
