import type { AgentConfigResource, OrchestratorResource } from '../../../api/index.js';
import type { Agent } from '../../agent/work.js';
import type { Logger } from '../../../platform/log.js';
import { DEFAULT_NAMESPACE, type DeclarativeSource } from '../../source/index.js';
import type { MemberChange, MemberInit, MemberSource } from './member-source.js';
import { matchesSelector } from './selector.js';

/** Builds the in-process agent for one replica (0-based) of an AgentConfig. */
export type AgentFactory = (config: AgentConfigResource, replica: number) => Agent;

export interface StandaloneSourceOptions {
  source: DeclarativeSource;
  factory: AgentFactory;
  /** The Orchestrator document whose `spec.agentPool.selector` applies. @default the only one, or the first by namespace/name */
  orchestrator?: { name: string; namespace?: string };
  log?: Logger;
}

interface Wanted {
  config: AgentConfigResource;
  replica: number;
  /** the spec and labels the agent was built from; a change rebuilds it */
  fingerprint: string;
}

const configName = (c: { metadata: { name: string; namespace?: string } }) =>
  `${c.metadata.namespace ?? DEFAULT_NAMESPACE}/${c.metadata.name}`;

/**
 * Standalone members: `spec.replicas` in-process agents per selected AgentConfig. Follows the declarative
 * source: more replicas add members, fewer remove the highest replicas, a changed spec (model, timeout, ...)
 * replaces the AgentConfig's agents, a deleted or deselected AgentConfig removes them. Removed members are
 * drained and closed by the pool.
 */
export class StandaloneSource implements MemberSource {
  readonly name = 'standalone';
  private current = new Map<string, Wanted & { member: MemberInit }>();
  private readonly listeners = new Set<(change: MemberChange) => void>();
  private unsubscribe: (() => void) | undefined;
  private want = 0;

  constructor(private readonly options: StandaloneSourceOptions) {}

  async ready(): Promise<void> {
    await this.options.source.ready();
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.source.subscribe((events) => {
      if (events.some((e) => e.resource.kind === 'AgentConfig' || e.resource.kind === 'Orchestrator')) this.sync();
    });
    this.sync();
  }

  members(): readonly MemberInit[] {
    return [...this.current.values()].map((w) => w.member);
  }

  desired(): number {
    return this.want;
  }

  subscribe(listener: (change: MemberChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
  }

  /** The Orchestrator whose selector applies, if any. */
  private orchestrator(): OrchestratorResource | undefined {
    const all = this.options.source.list('Orchestrator');
    const named = this.options.orchestrator;
    if (named)
      return all.find(
        (o) =>
          o.metadata.name === named.name &&
          (o.metadata.namespace ?? DEFAULT_NAMESPACE) === (named.namespace ?? DEFAULT_NAMESPACE),
      );
    return all.sort((a, b) => configName(a).localeCompare(configName(b)))[0];
  }

  /** The members the declarative state asks for now, by key. */
  private wanted(): Map<string, Wanted> {
    const orchestrator = this.orchestrator();
    const selector = orchestrator?.spec.agentPool?.selector;
    // An Orchestrator document scopes the pool to its namespace; without one, every AgentConfig takes part.
    const namespace = orchestrator ? (orchestrator.metadata.namespace ?? DEFAULT_NAMESPACE) : undefined;
    const out = new Map<string, Wanted>();
    for (const config of this.options.source.list('AgentConfig', namespace)) {
      if (!matchesSelector(config.metadata.labels, selector)) continue;
      const fingerprint = JSON.stringify({ ...config.spec, replicas: undefined });
      for (let replica = 0; replica < config.spec.replicas; replica++) {
        out.set(`${configName(config)}#${replica}`, { config, replica, fingerprint });
      }
    }
    return out;
  }

  private sync(): void {
    const wanted = this.wanted();
    const desiredChanged = this.want !== wanted.size;
    this.want = wanted.size;
    const removed: string[] = [];
    const added: MemberInit[] = [];
    for (const [key, had] of this.current) {
      if (wanted.get(key)?.fingerprint === had.fingerprint) continue;
      removed.push(key);
      this.current.delete(key);
    }
    for (const [key, w] of wanted) {
      if (this.current.has(key)) continue;
      let agent: Agent;
      try {
        agent = this.options.factory(w.config, w.replica);
      } catch (err) {
        this.options.log?.error({ err, member: key }, 'in-process agent could not be created');
        continue;
      }
      const member: MemberInit = { key, kind: 'in-process', agent, agentConfig: configName(w.config) };
      this.current.set(key, { ...w, member });
      added.push(member);
    }
    // NB: an empty change still tells the pool that `desired` moved (e.g. an agent that could not be built).
    if (removed.length === 0 && added.length === 0 && !desiredChanged) return;
    for (const l of this.listeners) l({ added, removed });
  }
}
