import type { Logger } from '../../../platform/log.js';
import type { AgentLlmRoute } from '../../llm/index.js';
import type { Member } from './members.js';
import type { PoolMemberView, PoolStatus, PoolStatusReporter } from './status.js';

/** The pool's figures over its live members; `desired` is the source's. */
export function poolStatus(live: readonly Member[], desired: number): PoolStatus {
  const available = live.filter((m) => !m.draining);
  const healthy = available.filter((m) => m.health === 'healthy').length;
  return { desired, available: available.length, healthy, unhealthy: available.length - healthy };
}

/** Items the healthy members take at once (the sum of their maxInFlight). */
export function capacityOf(live: readonly Member[]): number {
  let slots = 0;
  for (const m of live) if (m.health === 'healthy') slots += m.agent.stats().maxInFlight;
  return slots;
}

/** One member as `pool.members()` shows it. */
export function memberView(m: Member): PoolMemberView {
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
}

/** Healthy members per AgentConfig (`namespace/name`); members whose source names no AgentConfig are not counted. */
export function healthyByAgentConfig(live: readonly Member[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of live) {
    if (m.agentConfig !== undefined && m.health === 'healthy')
      out.set(m.agentConfig, (out.get(m.agentConfig) ?? 0) + 1);
  }
  return out;
}

/** The provider each AgentConfig's agents report they call, from its first healthy member that says. */
export function llmByAgentConfig(live: readonly Member[]): Map<string, AgentLlmRoute> {
  const out = new Map<string, AgentLlmRoute>();
  for (const m of live) {
    if (m.agentConfig === undefined || m.health !== 'healthy' || out.has(m.agentConfig)) continue;
    const llm = m.agent.stats().llm;
    if (llm) out.set(m.agentConfig, llm);
  }
  return out;
}

/**
 * Tells the pool's listeners and its reporter when a figure changed: status listeners and the reporter when the
 * status did, health listeners when the status or the healthy count of an AgentConfig did.
 */
export class FigureWatch {
  private readonly statusListeners = new Set<(s: PoolStatus) => void>();
  private readonly healthListeners = new Set<() => void>();
  private lastHealth = '';
  private lastStatus = '';

  constructor(
    private readonly reporter: PoolStatusReporter | undefined,
    private readonly log: Logger | undefined,
  ) {}

  onStatus(listener: (s: PoolStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onHealth(listener: () => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  /** Compares the figures with the last ones told; `healthy` is computed only when someone listens for it. */
  update(status: PoolStatus, healthy: () => Map<string, number>): void {
    const text = JSON.stringify(status);
    if (this.healthListeners.size > 0) {
      const health = `${text} ${JSON.stringify([...healthy()].sort(([a], [b]) => a.localeCompare(b)))}`;
      if (health !== this.lastHealth) {
        this.lastHealth = health;
        for (const l of this.healthListeners) l();
      }
    }
    if (text === this.lastStatus) return;
    this.lastStatus = text;
    for (const l of this.statusListeners) l(status);
    const reporter = this.reporter;
    if (reporter) {
      Promise.resolve()
        .then(() => reporter.report(status))
        .catch((err: unknown) => this.log?.warn({ err }, 'pool status report failed'));
    }
  }
}
