/**
 * The delivery worker's sends in flight, counted per organization and per target the way claimDue's caps count
 * them. A task leaves the set when it ends, however it ends, so that its slot is never lost.
 */
import type { ClaimedDelivery, ClaimFairness } from './repository.js';

interface Task {
  organizationId: string;
  target: string;
  done: Promise<void>;
}

export class InFlight {
  private readonly tasks = new Map<string, Task>();

  get size(): number {
    return this.tasks.size;
  }

  counts(): ClaimFairness['inFlight'] {
    const organizations: Record<string, number> = {};
    const targets: Record<string, Record<string, number>> = {};
    for (const { organizationId: org, target } of this.tasks.values()) {
      organizations[org] = (organizations[org] ?? 0) + 1;
      const own = (targets[org] ??= {});
      own[target] = (own[target] ?? 0) + 1;
    }
    return { organizations, targets };
  }

  /** Runs `task` for `d`; `ended` is called after it left the set, whether it resolved or threw (`failed`). */
  run(d: ClaimedDelivery, task: () => Promise<void>, failed: (err: unknown) => void, ended: () => void): void {
    const done = task()
      .catch(failed)
      .finally(() => {
        this.tasks.delete(d.id);
        ended();
      });
    this.tasks.set(d.id, { organizationId: d.organizationId, target: d.target, done });
  }

  /** Resolves when no task is in flight any more (tasks started meanwhile included). */
  async drained(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks.values()].map((t) => t.done));
  }
}
