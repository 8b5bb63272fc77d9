import type { Logger } from '../../../platform/log.js';
import type { WorkItem } from '../../agent/work.js';
import type { AgentLlmRoute } from '../../llm/index.js';
import { Dispatcher, type AcquireOptions, type Dispatched, type DispatchOptions, type Lease } from './dispatch.js';
import { FigureWatch, capacityOf, healthyByAgentConfig, llmByAgentConfig, memberView, poolStatus } from './figures.js';
import type { MemberSource } from './member-source.js';
import { Membership } from './members.js';
import type { PoolMemberView, PoolStatus, PoolStatusReporter } from './status.js';

export type { AcquireOptions, Dispatched, DispatchOptions, Lease } from './dispatch.js';

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

/**
 * The orchestrator's agent pool: members from one MemberSource, health from probes and failed calls, and
 * least-loaded dispatch. The pool's own in-flight counts decide where an item goes; a member is never given
 * more than its maxInFlight items. Items wait (FIFO) while every healthy member is full.
 *
 * It wires three parts: the membership and its probes (members.ts), dispatch (dispatch.ts) and the figures it
 * tells (figures.ts); every change of the membership re-checks the waiting items, then tells the figures.
 */
export class AgentPool {
  private readonly membership: Membership;
  private readonly dispatcher: Dispatcher;
  private readonly figures: FigureWatch;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  private constructor(private readonly options: AgentPoolOptions) {
    this.membership = new Membership({
      probeTimeoutMs: options.probeTimeoutMs,
      log: options.log,
      changed: () => this.changed(),
    });
    this.dispatcher = new Dispatcher(this.membership);
    this.figures = new FigureWatch(options.reporter, options.log);
  }

  /** Builds the pool from the source's current members, probes remote ones once, then follows changes. */
  static async start(options: AgentPoolOptions): Promise<AgentPool> {
    const pool = new AgentPool(options);
    await options.source.ready();
    pool.membership.apply({ added: options.source.members(), removed: [] });
    pool.unsubscribe = options.source.subscribe((change) => pool.membership.apply(change));
    await pool.probeNow();
    pool.timer = setInterval(() => void pool.probeNow(), options.probeIntervalMs ?? 5000);
    pool.timer.unref();
    return pool;
  }

  status(): PoolStatus {
    return poolStatus(this.membership.live, this.options.source.desired());
  }

  /** Items the healthy members take at once (the sum of their maxInFlight): the size of one batch. */
  capacity(): number {
    return capacityOf(this.membership.live);
  }

  members(): PoolMemberView[] {
    return this.membership.all().map(memberView);
  }

  /** Calls `listener` with the status whenever a figure changes; returns the unsubscribe function. */
  onStatus(listener: (s: PoolStatus) => void): () => void {
    return this.figures.onStatus(listener);
  }

  /** Healthy members per AgentConfig (`namespace/name`); members whose source names no AgentConfig are not counted. */
  healthyByAgentConfig(): Map<string, number> {
    return healthyByAgentConfig(this.membership.live);
  }

  /**
   * The provider each AgentConfig's agents report they call (their stats' `llm`), from its first healthy member
   * that says; AgentConfigs whose members report none are absent.
   */
  llmByAgentConfig(): Map<string, AgentLlmRoute> {
    return llmByAgentConfig(this.membership.live);
  }

  /**
   * Calls `listener` whenever the status or the healthy count of an AgentConfig changed (the cluster's status
   * writer needs both: two members of two AgentConfigs may swap health with the totals unchanged).
   */
  onHealth(listener: () => void): () => void {
    return this.figures.onHealth(listener);
  }

  /**
   * Holds the healthy member with the fewest items in flight (ties: round robin), waiting while all are full.
   * Rejects with NoHealthyAgentsError when no member is healthy, and with the signal's reason on abort.
   */
  acquire(options: AcquireOptions = {}): Promise<Lease> {
    return this.dispatcher.acquire(options);
  }

  /**
   * Runs one item on a member. A member that refuses before starting the item (429 AGENT_BUSY: it is shared with
   * other orchestrator replicas; 503 AGENT_CLOSING: it is draining) or cannot be connected to did not run it, so
   * the item goes to another member; when every healthy member refused, the item waits a short, growing back-off
   * and tries again until `signal` aborts. Any other communication failure marks the member unhealthy and
   * reaches the caller as AgentCommunicationError: the item may have run, so it is never retried here.
   */
  dispatch(item: WorkItem, signal?: AbortSignal, options: DispatchOptions = {}): Promise<Dispatched> {
    return this.dispatcher.dispatch(item, signal, options);
  }

  /** Probes every remote member once (GET /readyz, GET /v1/stats); the interval timer calls this too. */
  probeNow(): Promise<void> {
    return this.membership.probeNow();
  }

  /**
   * Stops probing and following the source, rejects waiting acquires with PoolClosedError, lets items in
   * flight finish and closes every member.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.dispatcher.stop();
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.options.source.close();
    // NB: the dispatcher is stopped: this pump refuses the acquires still waiting with PoolClosedError.
    this.dispatcher.pump();
    await this.membership.closeAll();
  }

  /** Re-checks waiters and tells the reporter and listeners when a figure changed. */
  private changed(): void {
    this.dispatcher.pump();
    this.figures.update(this.status(), () => this.healthyByAgentConfig());
  }
}
