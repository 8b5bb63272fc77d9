import type { Logger } from '../../../platform/log.js';
import { AgentBusyError, AgentClosedError, type Agent, type WorkItem, type WorkResult } from '../../agent/work.js';
import type { AgentLlmRoute } from '../../llm/index.js';
import { AgentCommunicationError, NoHealthyAgentsError, PoolClosedError } from './errors.js';
import { isProbed, type MemberChange, type MemberInit, type MemberSource, type ProbedAgent } from './member-source.js';
import type { MemberHealth, PoolMemberView, PoolStatus, PoolStatusReporter } from './status.js';

export interface AgentPoolOptions {
  source: MemberSource;
  /** Interval of the active probes of remote members (GET /readyz, then GET /v1/stats). @default 5s */
  probeIntervalMs?: number;
  /** Deadline of one probe. @default 2s */
  probeTimeoutMs?: number;
  /** Told the status whenever a figure changes. */
  reporter?: PoolStatusReporter;
  log?: Logger;
}

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

interface Member extends MemberInit {
  health: MemberHealth;
  inFlight: number;
  draining: boolean;
  /** the probe running now, if any */
  probing?: Promise<void>;
  lastError?: string;
}

interface Waiter extends AcquireOptions {
  resolve(lease: Lease): void;
  reject(err: unknown): void;
}

/**
 * The orchestrator's agent pool: members from one MemberSource, health from probes and failed calls, and
 * least-loaded dispatch. The pool's own in-flight counts decide where an item goes; a member is never given
 * more than its maxInFlight items. Items wait (FIFO) while every healthy member is full.
 */
export class AgentPool {
  private readonly byKey = new Map<string, Member>();
  private order: Member[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly drained = new Set<Promise<void>>();
  private readonly statusListeners = new Set<(s: PoolStatus) => void>();
  private readonly healthListeners = new Set<() => void>();
  private lastHealth = '';
  private cursor = 0;
  private lastStatus = '';
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  private constructor(private readonly options: AgentPoolOptions) {}

  /** Builds the pool from the source's current members, probes remote ones once, then follows changes. */
  static async start(options: AgentPoolOptions): Promise<AgentPool> {
    const pool = new AgentPool(options);
    await options.source.ready();
    pool.apply({ added: options.source.members(), removed: [] });
    pool.unsubscribe = options.source.subscribe((change) => pool.apply(change));
    await pool.probeNow();
    pool.timer = setInterval(() => void pool.probeNow(), options.probeIntervalMs ?? 5000);
    pool.timer.unref();
    return pool;
  }

  status(): PoolStatus {
    const live = this.order.filter((m) => !m.draining);
    const healthy = live.filter((m) => m.health === 'healthy').length;
    return {
      desired: this.options.source.desired(),
      available: live.length,
      healthy,
      unhealthy: live.length - healthy,
    };
  }

  /** Items the healthy members take at once (the sum of their maxInFlight): the size of one batch. */
  capacity(): number {
    let slots = 0;
    for (const m of this.order) if (m.health === 'healthy') slots += m.agent.stats().maxInFlight;
    return slots;
  }

  members(): PoolMemberView[] {
    return [...this.byKey.values()].map((m) => {
      const stats = m.agent.stats();
      return {
        id: m.agent.id,
        key: m.key,
        kind: m.kind,
        ...(m.agentConfig ? { agentConfig: m.agentConfig } : {}),
        health: m.health,
        draining: m.draining,
        inFlight: m.inFlight,
        maxInFlight: stats.maxInFlight,
        stats,
        ...(m.lastError ? { lastError: m.lastError } : {}),
      };
    });
  }

  /** Calls `listener` with the status whenever a figure changes; returns the unsubscribe function. */
  onStatus(listener: (s: PoolStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Healthy members per AgentConfig (`namespace/name`); members whose source names no AgentConfig are not counted. */
  healthyByAgentConfig(): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.order) {
      if (m.agentConfig !== undefined && m.health === 'healthy')
        out.set(m.agentConfig, (out.get(m.agentConfig) ?? 0) + 1);
    }
    return out;
  }

  /**
   * The provider each AgentConfig's agents report they call (their stats' `llm`), from its first healthy member
   * that says; AgentConfigs whose members report none are absent.
   */
  llmByAgentConfig(): Map<string, AgentLlmRoute> {
    const out = new Map<string, AgentLlmRoute>();
    for (const m of this.order) {
      if (m.agentConfig === undefined || m.health !== 'healthy' || out.has(m.agentConfig)) continue;
      const llm = m.agent.stats().llm;
      if (llm) out.set(m.agentConfig, llm);
    }
    return out;
  }

  /**
   * Calls `listener` whenever the status or the healthy count of an AgentConfig changed (the cluster's status
   * writer needs both: two members of two AgentConfigs may swap health with the totals unchanged).
   */
  onHealth(listener: () => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  /**
   * Holds the healthy member with the fewest items in flight (ties: round robin), waiting while all are full.
   * Rejects with NoHealthyAgentsError when no member is healthy, and with the signal's reason on abort.
   */
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

  /**
   * Runs one item on a member. A member that refuses before starting the item (429 AGENT_BUSY: it is shared with
   * other orchestrator replicas; 503 AGENT_CLOSING: it is draining) or cannot be connected to did not run it, so
   * the item goes to another member; when every healthy member refused, the item waits a short, growing back-off
   * and tries again until `signal` aborts. Any other communication failure marks the member unhealthy and
   * reaches the caller as AgentCommunicationError: the item may have run, so it is never retried here.
   */
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
          this.markUnhealthy(lease.memberKey, err.message);
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

  /** Probes every remote member once (GET /readyz, GET /v1/stats); the interval timer calls this too. */
  async probeNow(): Promise<void> {
    await Promise.all(this.order.filter((m) => isProbed(m.agent)).map((m) => (m.probing ??= this.probe(m))));
    this.changed();
  }

  /** One probe of one member; a probe already running is shared, not repeated. */
  private async probe(m: Member): Promise<void> {
    try {
      await (m.agent as ProbedAgent).probe(AbortSignal.timeout(this.options.probeTimeoutMs ?? 2000));
      if (m.health !== 'healthy') this.options.log?.info({ member: m.key }, 'agent healthy');
      m.health = 'healthy';
      m.lastError = undefined;
    } catch (err) {
      if (m.health !== 'unhealthy') this.options.log?.warn({ member: m.key, err }, 'agent probe failed');
      m.health = 'unhealthy';
      m.lastError = err instanceof Error ? err.message : String(err);
    } finally {
      m.probing = undefined;
    }
  }

  /**
   * Stops probing and following the source, rejects waiting acquires with PoolClosedError, lets items in
   * flight finish and closes every member.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.options.source.close();
    for (const w of this.waiters.splice(0)) w.reject(new PoolClosedError());
    for (const m of [...this.byKey.values()]) this.drain(m);
    await Promise.all(this.drained);
  }

  private apply(change: MemberChange): void {
    for (const key of change.removed) {
      const m = this.byKey.get(key);
      if (m) this.drain(m);
    }
    for (const init of change.added) {
      const existing = this.byKey.get(init.key);
      if (existing) this.drain(existing);
      const m: Member = {
        ...init,
        health: isProbed(init.agent) ? 'starting' : 'healthy',
        inFlight: 0,
        draining: false,
      };
      this.byKey.set(init.key, m);
      this.order.push(m);
      this.options.log?.info({ member: m.key, kind: m.kind }, 'agent joined the pool');
    }
    this.changed();
    if (change.added.some((a) => isProbed(a.agent))) void this.probeNow();
  }

  /** Takes a member out of dispatch; closes it once its items are finished. */
  private drain(m: Member): void {
    if (m.draining) return;
    m.draining = true;
    this.order = this.order.filter((o) => o !== m);
    this.options.log?.info({ member: m.key, inFlight: m.inFlight }, 'agent leaving the pool');
    if (m.inFlight === 0) this.closeMember(m);
    this.changed();
  }

  private closeMember(m: Member): void {
    if (this.byKey.get(m.key) === m) this.byKey.delete(m.key);
    const done = m.agent
      .close()
      .catch((err: unknown) => this.options.log?.warn({ member: m.key, err }, 'agent close failed'))
      .finally(() => this.drained.delete(done));
    this.drained.add(done);
  }

  private markUnhealthy(key: string, reason: string): void {
    const m = this.byKey.get(key);
    // NB: in-process members have no probe to bring them back, and are healthy while they are members.
    if (!m || m.draining || !isProbed(m.agent)) return;
    if (m.health !== 'unhealthy')
      this.options.log?.warn({ member: key, reason }, 'agent marked unhealthy after a failed call');
    m.health = 'unhealthy';
    m.lastError = reason;
    this.changed();
  }

  /** Hands free members to waiting acquires, in arrival order. */
  private pump(): void {
    if (this.closed) {
      for (const w of this.waiters.splice(0)) w.reject(new PoolClosedError());
      return;
    }
    for (let i = 0; i < this.waiters.length;) {
      const w = this.waiters[i]!;
      const eligible = w.agentConfig === undefined ? this.order : this.order.filter((m) => serves(m, w.agentConfig));
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
    const n = this.order.length;
    let best: Member | undefined;
    let bestIndex = 0;
    for (let step = 0; step < n; step++) {
      const i = (this.cursor + step) % n;
      const m = this.order[i]!;
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
        if (m.draining && m.inFlight === 0) this.closeMember(m);
        this.pump();
      },
    };
  }

  /** Re-checks waiters and tells the reporter and listeners when a figure changed. */
  private changed(): void {
    this.pump();
    const status = this.status();
    const text = JSON.stringify(status);
    if (this.healthListeners.size > 0) {
      const health = `${text} ${JSON.stringify([...this.healthyByAgentConfig()].sort(([a], [b]) => a.localeCompare(b)))}`;
      if (health !== this.lastHealth) {
        this.lastHealth = health;
        for (const l of this.healthListeners) l();
      }
    }
    if (text === this.lastStatus) return;
    this.lastStatus = text;
    for (const l of this.statusListeners) l(status);
    const reporter = this.options.reporter;
    if (reporter) {
      Promise.resolve()
        .then(() => reporter.report(status))
        .catch((err: unknown) => this.options.log?.warn({ err }, 'pool status report failed'));
    }
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
