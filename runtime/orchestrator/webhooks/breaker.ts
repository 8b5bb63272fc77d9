/**
 * Circuit breakers of the delivery worker, one per target (an organization's receiver origin). A target that
 * times out or refuses connections `failureThreshold` times in a row is left alone for `cooldownMs`: its
 * deliveries are recorded as attempts without a request, so that they hold no send slot for a whole timeout each.
 * Then one probe goes through (half-open): an answer closes the breaker, a failure opens it for another cool-down.
 * In memory, per process: a restarted worker starts closed, which costs at most `failureThreshold` timeouts.
 */
export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  /** How long a probe may take before another is let through (the send's own timeout). */
  probeTimeoutMs: number;
}

/** Whether to send now; if not, the earliest time it is worth asking again. */
export type Admission = { send: true } | { send: false; until: Date };

interface State {
  /** Consecutive timeouts and connection failures. */
  failures: number;
  /** Set while open or half-open: until when it stays open. */
  openUntil?: number;
  /** Set while a half-open probe is in flight: when it is given up on. */
  probeUntil?: number;
}

export class CircuitBreakers {
  private readonly states = new Map<string, State>();

  constructor(private readonly options: BreakerOptions) {}

  admit(target: string, now: Date): Admission {
    const s = this.states.get(target);
    if (s?.openUntil === undefined) return { send: true };
    const t = now.getTime();
    if (t < s.openUntil) return { send: false, until: new Date(s.openUntil) };
    if (s.probeUntil !== undefined && t < s.probeUntil) return { send: false, until: new Date(s.probeUntil) };
    s.probeUntil = t + this.options.probeTimeoutMs;
    return { send: true };
  }

  /** The target answered (any HTTP status: it is reachable). Returns whether that closed an open breaker. */
  answered(target: string): boolean {
    const wasOpen = this.states.get(target)?.openUntil !== undefined;
    this.states.delete(target);
    return wasOpen;
  }

  /**
   * A timeout or connection failure. Returns whether that opened the breaker: at the threshold, or any failure
   * while it is open or half-open (a failed probe), which starts a new cool-down.
   */
  failed(target: string, now: Date): boolean {
    const s = this.states.get(target) ?? { failures: 0 };
    this.states.set(target, s);
    s.failures++;
    s.probeUntil = undefined;
    if (s.openUntil === undefined && s.failures < this.options.failureThreshold) return false;
    s.openUntil = now.getTime() + this.options.cooldownMs;
    return true;
  }

  /** An attempt that says nothing of the target (refused by the SSRF guard): a probe's place goes to the next one. */
  inconclusive(target: string): void {
    const s = this.states.get(target);
    if (s) s.probeUntil = undefined;
  }

  /** closed, open, or half-open (the cool-down is over). */
  state(target: string, now: Date): 'closed' | 'open' | 'half-open' {
    const until = this.states.get(target)?.openUntil;
    if (until === undefined) return 'closed';
    return now.getTime() < until ? 'open' : 'half-open';
  }
}
