import { AgentBusyError, AgentClosedError, type Agent, type WorkItem, type WorkResult } from '../../agent/work.js';
import { AgentCommunicationError, NoHealthyAgentsError, PoolClosedError } from './errors.js';
import type { MemberInit } from './member-source.js';
import type { Member, Membership } from './members.js';

/** A member held for one item. Release it exactly once, when the item is finished. */
export interface Lease {
  readonly agent: Agent;
  readonly memberKey: string;
  release(): void;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** Member keys not to use (members that just answered busy). When every healthy member is excluded: AgentBusyError. */
  exclude?: ReadonlySet<string>;
  /**
   * Only members of this AgentConfig (`namespace/name`), and members whose AgentConfig the source does not know
   * (static remote endpoints serve every AgentConfig). Absent: any member.
   */
  agentConfig?: string;
}

/** Options of one dispatch. */
export interface DispatchOptions {
  /** Run the item on a member of this AgentConfig (`namespace/name`); see AcquireOptions.agentConfig. */
  agentConfig?: string;
}

/** An item's outcome on the member that ran it. */
export interface Dispatched {
  result: WorkResult;
  /** the member's key in the pool */
  member: string;
  /** from handing the item to the member to its answer, as this process measured it (transport included) */
  latencyMs: number;
}

interface Waiter extends AcquireOptions {
  resolve(lease: Lease): void;
  reject(err: unknown): void;
}

/**
 * Least-loaded dispatch over the live members: the pool's own in-flight counts decide where an item goes, a member
 * is never given more than its maxInFlight items, and items wait (FIFO) while every healthy member is full.
 */
export class Dispatcher {
  private readonly waiters: Waiter[] = [];
  private cursor = 0;
  private closed = false;

  constructor(private readonly members: Membership) {}

  /** See AgentPool.acquire. */
  acquire(options: AcquireOptions = {}): Promise<Lease> {
    return new Promise<Lease>((resolve, reject) => {
      options.signal?.throwIfAborted();
      const waiter: Waiter = { ...options, resolve, reject };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(options.signal?.reason);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      waiter.resolve = (lease) => (options.signal?.removeEventListener('abort', onAbort), resolve(lease));
      waiter.reject = (err) => (options.signal?.removeEventListener('abort', onAbort), reject(err));
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** See AgentPool.dispatch. */
  async dispatch(item: WorkItem, signal?: AbortSignal, options: DispatchOptions = {}): Promise<Dispatched> {
    let tried = new Set<string>();
    for (let round = 0; ;) {
      let lease: Lease;
      try {
        lease = await this.acquire({ signal, exclude: tried, agentConfig: options.agentConfig });
      } catch (err) {
        if (!(err instanceof AgentBusyError)) throw err;
        tried = new Set();
        await backOff(round++, signal);
        continue;
      }
      const startedAt = performance.now();
      try {
        const result = await lease.agent.execute(item, signal);
        return { result, member: lease.memberKey, latencyMs: performance.now() - startedAt };
      } catch (err) {
        if (err instanceof AgentBusyError || err instanceof AgentClosedError) {
          tried.add(lease.memberKey);
          continue;
        }
        if (err instanceof AgentCommunicationError) {
          this.members.markUnhealthy(lease.memberKey, err.message);
          if (err.failure === 'connect') {
            tried.add(lease.memberKey);
            continue;
          }
        }
        throw err;
      } finally {
        lease.release();
      }
    }
  }

  /** Refuses acquires from now on: each pump rejects the waiting ones with PoolClosedError. */
  stop(): void {
    this.closed = true;
  }

  /** Hands free members to waiting acquires, in arrival order. */
  pump(): void {
    if (this.closed) {
      for (const w of this.waiters.splice(0)) w.reject(new PoolClosedError());
      return;
    }
    for (let i = 0; i < this.waiters.length;) {
      const w = this.waiters[i]!;
      const live = this.members.live;
      const eligible = w.agentConfig === undefined ? live : live.filter((m) => serves(m, w.agentConfig));
      const healthy = eligible.filter((m) => m.health === 'healthy');
      if (healthy.length === 0) {
        this.waiters.splice(i, 1);
        w.reject(new NoHealthyAgentsError(eligible.length, w.agentConfig));
        continue;
      }
      if (w.exclude && healthy.every((m) => w.exclude!.has(m.key))) {
        this.waiters.splice(i, 1);
        w.reject(new AgentBusyError());
        continue;
      }
      const m = this.pick(w.exclude, w.agentConfig);
      if (!m) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      w.resolve(this.lease(m));
    }
  }

  /** The healthy member with the fewest items in flight and a free slot; ties go round robin. */
  private pick(exclude?: ReadonlySet<string>, agentConfig?: string): Member | undefined {
    const live = this.members.live;
    const n = live.length;
    let best: Member | undefined;
    let bestIndex = 0;
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      const m = live[i]!;
      if (m.health !== 'healthy' || exclude?.has(m.key)) continue;
      if (agentConfig !== undefined && !serves(m, agentConfig)) continue;
      if (m.inFlight >= m.agent.stats().maxInFlight) continue;
      if (!best || m.inFlight < best.inFlight) {
        best = m;
        bestIndex = i;
      }
    }
    if (best) this.cursor = (bestIndex + 1) % n;
    return best;
  }

  private lease(m: Member): Lease {
    m.inFlight++;
    let released = false;
    return {
      agent: m.agent,
      memberKey: m.key,
      release: () => {
        if (released) return;
        released = true;
        m.inFlight--;
        this.members.closeIfDrained(m);
        this.pump();
      },
    };
  }
}

/** Whether a member may run items of an AgentConfig: its own, or any when the source does not say (static endpoints). */
function serves(m: MemberInit, agentConfig: string | undefined): boolean {
  return agentConfig === undefined || m.agentConfig === undefined || m.agentConfig === agentConfig;
}

/** Waits 10 ms doubling per round up to 320 ms, with jitter (members shared with other replicas free up at random). */
function backOff(round: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.min(320, 10 * 2 ** round) * (0.5 + Math.random() / 2);
  return new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
