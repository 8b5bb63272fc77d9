/**
 * Failures of policy evaluations: a counter per policy and class (for Prometheus), and the rule that turns
 * /health degraded: a policy "keeps failing" while it failed at least `threshold` times in the last `windowMs`.
 * It recovers by itself once its failures age out of the window.
 */
import { FAILURE_CLASSES, type FailureClass } from './failure.js';

export interface FailureLogOptions {
  /** @default 60_000 */
  windowMs?: number;
  /** failures within the window that make a policy "keep failing" @default 5 */
  threshold?: number;
  /** milliseconds, monotonic or wall-clock @default performance.now */
  now?: () => number;
}

/** A policy that keeps failing: how often within the window, and the classes seen there. */
export interface FailingPolicy {
  policy: string;
  failures: number;
  classes: FailureClass[];
}

export interface FailureCount {
  policy: string;
  class: FailureClass;
  value: number;
}

interface Recent {
  at: number[];
  cls: FailureClass[];
}

export class PolicyFailureLog {
  readonly windowMs: number;
  readonly threshold: number;
  private readonly now: () => number;
  private readonly totals = new Map<string, Map<FailureClass, number>>();
  private readonly recent = new Map<string, Recent>();

  constructor(options: FailureLogOptions = {}) {
    this.windowMs = options.windowMs ?? 60_000;
    this.threshold = options.threshold ?? 5;
    this.now = options.now ?? (() => performance.now());
  }

  record(policy: string, cls: FailureClass): void {
    let byClass = this.totals.get(policy);
    if (!byClass) this.totals.set(policy, (byClass = new Map()));
    byClass.set(cls, (byClass.get(cls) ?? 0) + 1);
    let r = this.recent.get(policy);
    if (!r) this.recent.set(policy, (r = { at: [], cls: [] }));
    r.at.push(this.now());
    r.cls.push(cls);
    // NB: only the last `threshold` failures decide, so that many are kept: memory stays bounded under a storm.
    if (r.at.length > this.threshold) {
      r.at.shift();
      r.cls.shift();
    }
  }

  /** Forgets policies that are no longer loaded, so the counter's series stay bounded by the loaded policies. */
  retain(policies: Iterable<string>): void {
    const keep = new Set(policies);
    for (const p of [...this.totals.keys()]) if (!keep.has(p)) this.totals.delete(p);
    for (const p of [...this.recent.keys()]) if (!keep.has(p)) this.recent.delete(p);
  }

  /** Policies with at least `threshold` failures within the window, by name. */
  failing(): FailingPolicy[] {
    const since = this.now() - this.windowMs;
    const out: FailingPolicy[] = [];
    for (const [policy, r] of this.recent) {
      const first = r.at.findIndex((t) => t > since);
      if (first < 0) {
        this.recent.delete(policy);
        continue;
      }
      const failures = r.at.length - first;
      if (failures < this.threshold) continue;
      const seen = new Set(r.cls.slice(first));
      out.push({ policy, failures, classes: FAILURE_CLASSES.filter((c) => seen.has(c)) });
    }
    return out.sort((a, b) => a.policy.localeCompare(b.policy));
  }

  /** Failures since start, per policy and class (only pairs that occurred). */
  counts(): FailureCount[] {
    const out: FailureCount[] = [];
    for (const [policy, byClass] of this.totals)
      for (const [cls, value] of byClass) out.push({ policy, class: cls, value });
    return out.sort((a, b) => a.policy.localeCompare(b.policy) || a.class.localeCompare(b.class));
  }
}
