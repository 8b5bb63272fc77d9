import { AgentBusyError, type Agent, type AgentStats, type WorkItem, type WorkResult } from '../../../agent/work.js';
import type { MemberChange, MemberInit, MemberSource } from '../member-source.js';

interface Pending {
  item: WorkItem;
  resolve(r: WorkResult): void;
  reject(err: unknown): void;
}

/**
 * An in-process agent whose items finish when the test says so. Stands in for the pool agent's LocalAgent:
 * it keeps the Agent contract (AgentBusyError at maxInFlight, abort through the signal).
 */
export class FakeAgent implements Agent {
  readonly pending: Pending[] = [];
  processed = 0;
  closed = false;
  /** Answer every call with AgentBusyError, as an agent loaded by another orchestrator replica would. */
  refuse = false;
  /** Calls refused (busy or `refuse`). */
  refusals = 0;

  constructor(
    readonly id: string,
    readonly maxInFlight = 1,
  ) {}

  execute(item: WorkItem, signal?: AbortSignal): Promise<WorkResult> {
    if (this.refuse || this.pending.length >= this.maxInFlight) {
      this.refusals++;
      return Promise.reject(new AgentBusyError(this.id, this.maxInFlight));
    }
    return new Promise((resolve, reject) => {
      const p: Pending = { item, resolve, reject };
      this.pending.push(p);
      signal?.addEventListener('abort', () => this.settle(p, () => reject(signal.reason)), { once: true });
    });
  }

  /** Finishes the oldest pending item successfully. */
  finish(): void {
    const p = this.pending[0];
    if (!p) throw new Error(`${this.id} has no pending item`);
    this.processed++;
    this.settle(p, () =>
      p.resolve({ status: 'success', policyDecision: 'allow', result: p.item.query, latencyMs: 1, agentId: this.id }),
    );
  }

  fail(err: unknown): void {
    const p = this.pending[0];
    if (!p) throw new Error(`${this.id} has no pending item`);
    this.settle(p, () => p.reject(err));
  }

  stats(): AgentStats {
    return {
      agentId: this.id,
      queriesProcessed: this.processed,
      inFlight: this.pending.length,
      maxInFlight: this.maxInFlight,
      cpuPercent: 0,
      memoryMb: 0,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private settle(p: Pending, fn: () => void): void {
    const i = this.pending.indexOf(p);
    if (i < 0) return;
    this.pending.splice(i, 1);
    fn();
  }
}

/** A MemberSource the test changes by hand. */
export class ListSource implements MemberSource {
  readonly name = 'list';
  private readonly list = new Map<string, MemberInit>();
  private readonly listeners = new Set<(c: MemberChange) => void>();
  closed = false;

  constructor(
    members: MemberInit[] = [],
    private want = members.length,
  ) {
    for (const m of members) this.list.set(m.key, m);
  }

  static of(...agents: Agent[]): ListSource {
    return new ListSource(agents.map((agent) => ({ key: agent.id, kind: 'in-process', agent })));
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }
  members(): readonly MemberInit[] {
    return [...this.list.values()];
  }
  desired(): number {
    return this.want;
  }
  subscribe(listener: (c: MemberChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async close(): Promise<void> {
    this.closed = true;
  }

  change(added: MemberInit[], removed: string[], want = this.want): void {
    for (const key of removed) this.list.delete(key);
    for (const m of added) this.list.set(m.key, m);
    this.want = want;
    for (const l of this.listeners) l({ added, removed });
  }
}

export const item = (query: string, timeoutMs = 5000): WorkItem => ({
  requestId: 'req-1',
  queryIndex: 0,
  query,
  policy: 'package q\n',
  timeoutMs,
});

/** Waits until `condition` holds; fails after the deadline. Polls, so it never asserts on timing. */
export async function until(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Lets pending promise callbacks and I/O callbacks run once. */
export const settle = () => new Promise<void>((r) => setImmediate(r));
