import { describe, expect, it } from 'vitest';
import { conflict } from '../status-errors.js';
import { WorkQueue } from './queue.js';

describe('WorkQueue', () => {
  it('runs a key added several times while it waits once', async () => {
    const runs: string[] = [];
    const q = new WorkQueue(
      (k) => void runs.push(k),
      () => {},
    );
    q.add('a');
    q.add('b');
    q.add('a');
    await q.whenQuiet();
    expect(runs).toEqual(['a', 'b']);
  });

  it('retries a conflict at once and counts it as work for whenQuiet', async () => {
    let attempts = 0;
    const q = new WorkQueue(
      () => {
        if (++attempts < 3)
          throw conflict({ group: 'apps', resource: 'deployments' }, 'web', 'the object has been modified');
      },
      () => {},
    );
    q.add('web');
    await q.whenQuiet();
    expect(attempts).toBe(3);
  });

  it('backs off after other errors without holding whenQuiet, and logs them', async () => {
    const log: string[] = [];
    let attempts = 0;
    const q = new WorkQueue(
      () => {
        attempts++;
        throw new Error('boom');
      },
      (m) => log.push(m),
    );
    q.add('k');
    await q.whenQuiet();
    expect(attempts).toBe(1);
    expect(log).toEqual(['reconcile k failed (attempt 1): boom']);
    q.stop();
  });
});
