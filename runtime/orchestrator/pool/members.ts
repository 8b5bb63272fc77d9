import type { Logger } from '../../../platform/log.js';
import { isProbed, type MemberChange, type MemberInit, type ProbedAgent } from './member-source.js';
import type { MemberHealth } from './status.js';

/** A member as the pool holds it: the source's member with its health and its load. */
export interface Member extends MemberInit {
  health: MemberHealth;
  inFlight: number;
  draining: boolean;
  /** the probe running now, if any */
  probing?: Promise<void>;
  lastError?: string;
}

export interface MembershipOptions {
  /** Deadline of one probe. @default 2s */
  probeTimeoutMs?: number;
  log?: Logger;
  /** Called after every change of the members or of their health (the pool re-checks waiters, tells its figures). */
  changed(): void;
}

/**
 * The pool's members: joins and leaves from the source, health from probes and failed calls. A member that leaves
 * (or is replaced) is drained: out of dispatch at once, closed once its items are finished.
 */
export class Membership {
  /** every member by the source's key, draining ones included until they are closed */
  private readonly byKey = new Map<string, Member>();
  private order: Member[] = [];
  private readonly drained = new Set<Promise<void>>();

  constructor(private readonly options: MembershipOptions) {}

  /** The members dispatch may use (not draining), in the order they joined. */
  get live(): readonly Member[] {
    return this.order;
  }

  /** Every member, draining ones included. */
  all(): Member[] {
    return [...this.byKey.values()];
  }

  apply(change: MemberChange): void {
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
    this.options.changed();
    if (change.added.some((a) => isProbed(a.agent))) void this.probeNow();
  }

  /** Probes every remote member once (GET /readyz, GET /v1/stats); the interval timer calls this too. */
  async probeNow(): Promise<void> {
    await Promise.all(this.order.filter((m) => isProbed(m.agent)).map((m) => (m.probing ??= this.probe(m))));
    this.options.changed();
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

  markUnhealthy(key: string, reason: string): void {
    const m = this.byKey.get(key);
    // NB: in-process members have no probe to bring them back, and are healthy while they are members.
    if (!m || m.draining || !isProbed(m.agent)) return;
    if (m.health !== 'unhealthy')
      this.options.log?.warn({ member: key, reason }, 'agent marked unhealthy after a failed call');
    m.health = 'unhealthy';
    m.lastError = reason;
    this.options.changed();
  }

  /** Closes a draining member once its last item finished (dispatch calls this when it releases a member). */
  closeIfDrained(m: Member): void {
    if (m.draining && m.inFlight === 0) this.closeMember(m);
  }

  /** Drains every member and waits for the closes under way (a member with items in flight closes after them). */
  async closeAll(): Promise<void> {
    for (const m of this.all()) this.drain(m);
    await Promise.all(this.drained);
  }

  /** Takes a member out of dispatch; closes it once its items are finished. */
  private drain(m: Member): void {
    if (m.draining) return;
    m.draining = true;
    this.order = this.order.filter((o) => o !== m);
    this.options.log?.info({ member: m.key, inFlight: m.inFlight }, 'agent leaving the pool');
    if (m.inFlight === 0) this.closeMember(m);
    this.options.changed();
  }

  private closeMember(m: Member): void {
    if (this.byKey.get(m.key) === m) this.byKey.delete(m.key);
    const done = m.agent
      .close()
      .catch((err: unknown) => this.options.log?.warn({ member: m.key, err }, 'agent close failed'))
      .finally(() => this.drained.delete(done));
    this.drained.add(done);
  }
}
