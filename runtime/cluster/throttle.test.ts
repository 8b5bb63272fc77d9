import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StatusThrottle } from './throttle.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A write that records the state current when it runs. */
function recorder() {
  const state = { value: 0 };
  const written: number[] = [];
  return { state, written, write: async () => void written.push(state.value) };
}

describe('StatusThrottle', () => {
  it('writes at once, then holds changes inside the interval and writes the last of them when it ends', async () => {
    const t = new StatusThrottle(1000, undefined, () => Date.now());
    const r = recorder();
    t.schedule('p', r.write);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.written).toEqual([0]);
    for (const v of [1, 2, 3]) {
      r.state.value = v;
      t.schedule('p', r.write);
    }
    await vi.advanceTimersByTimeAsync(999);
    expect(r.written).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.written).toEqual([0, 3]);
    t.close();
  });

  it('keeps objects apart: one object in its interval does not delay another', async () => {
    const t = new StatusThrottle(1000, undefined, () => Date.now());
    const a = recorder();
    const b = recorder();
    t.schedule('a', a.write);
    t.schedule('b', b.write);
    await vi.advanceTimersByTimeAsync(0);
    expect([a.written, b.written]).toEqual([[0], [0]]);
    t.close();
  });

  it('retries a failed write after a delay, with the state current then', async () => {
    const t = new StatusThrottle(0, undefined, () => Date.now());
    const state = { value: 0, fail: true };
    const written: number[] = [];
    const write = async () => {
      if (state.fail) throw new Error('503');
      written.push(state.value);
    };
    t.schedule('p', write);
    await vi.advanceTimersByTimeAsync(0);
    state.fail = false;
    state.value = 7;
    await vi.advanceTimersByTimeAsync(1000);
    expect(written).toEqual([7]);
    t.close();
  });

  it('forgets a pending write when cancelled', async () => {
    const t = new StatusThrottle(1000, undefined, () => Date.now());
    const r = recorder();
    t.schedule('p', r.write);
    await vi.advanceTimersByTimeAsync(0);
    t.schedule('p', r.write);
    t.cancel('p');
    await vi.advanceTimersByTimeAsync(5000);
    expect(r.written).toEqual([0]);
    t.close();
  });
});
