import { Informer, Resources, type KubeClient, type KubeObject } from '../../../platform/kube/index.js';
import type { Logger } from '../../../platform/log.js';
import type { MemberChange, MemberInit, MemberSource } from './member-source.js';
import { RemoteAgent, type RemoteAgentOptions } from './remote-agent.js';
import { matchesSelector, type LabelSelector } from './selector.js';

/** The label the EndpointSlice controller puts on every slice: the name of the Service it serves. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The agent Service's port name (docs/cluster-mode.md: `A-agent`, port 8090 `http`). */
const AGENT_PORT_NAME = 'http';

/** The Service of AgentConfig `A` is `A-agent` (docs/cluster-mode.md). */
export const agentServiceName = (agentConfig: string): string => `${agentConfig}-agent`;

export interface EndpointSliceSourceOptions extends Omit<RemoteAgentOptions, 'endpoint' | 'id'> {
  client: KubeClient;
  /** STEWARD_NAMESPACE: the Orchestrator, its AgentConfigs and their Services live here. */
  namespace: string;
  /** STEWARD_ORCHESTRATOR_NAME: whose `spec.agentPool.selector` picks the AgentConfigs. */
  orchestrator: string;
  log?: Logger;
}

/** An AgentConfig the Orchestrator selects, as the informer caches it (status included, for the status writer). */
export type SelectedAgentConfig = KubeObject & { spec?: { replicas?: number }; status?: Record<string, unknown> };

interface Endpoint {
  /** `namespace/name` of the AgentConfig, as the pool's dispatch names it */
  agentConfig: string;
  url: string;
  /** the pod's name, the member's id until its first probe */
  pod?: string;
}

type Slice = KubeObject & {
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean }; targetRef?: { name?: string } }[];
  ports?: { name?: string; port?: number }[];
};

/**
 * Pool members from the cluster (STEWARD_AGENT_DISCOVERY=kubernetes): the ready endpoints of the EndpointSlices
 * of the Services `A-agent`, for the AgentConfigs `A` that the Orchestrator's `spec.agentPool.selector` picks
 * (absent selector: all of the namespace; absent Orchestrator: none). Watch-driven through informers on the
 * Orchestrators, AgentConfigs and EndpointSlices of the namespace: an endpoint that appears or becomes ready
 * joins at once, one that disappears or stops being ready leaves at once. `desired` is the sum of the selected
 * AgentConfigs' `spec.replicas`.
 *
 * NB: Services are not watched: a slice names its Service in `kubernetes.io/service-name` and carries the
 * Service's port names, which is all the mapping needs.
 */
export class EndpointSliceSource implements MemberSource {
  readonly name = 'kubernetes';
  private readonly orchestrators: Informer;
  private readonly agentConfigs: Informer<SelectedAgentConfig>;
  private readonly slices: Informer<Slice>;
  private readonly current = new Map<string, MemberInit>();
  private readonly listeners = new Set<(change: MemberChange) => void>();
  private readonly updateListeners = new Set<() => void>();
  private readonly unsubscribers: (() => void)[] = [];
  private readonly warned = new Set<string>();
  private readonly agentOptions: Omit<RemoteAgentOptions, 'endpoint' | 'id'>;
  private want = 0;
  private started: Promise<void> | undefined;
  private isSynced = false;

  constructor(private readonly options: EndpointSliceSourceOptions) {
    const { client: _client, namespace: _namespace, orchestrator: _orchestrator, log: _log, ...agentOptions } = options;
    this.agentOptions = agentOptions;
    const common = { namespace: options.namespace, log: options.log };
    this.orchestrators = new Informer(options.client, Resources.Orchestrator, common);
    this.agentConfigs = new Informer<SelectedAgentConfig>(options.client, Resources.AgentConfig, common);
    this.slices = new Informer<Slice>(options.client, Resources.EndpointSlice, {
      ...common,
      labelSelector: SERVICE_NAME_LABEL,
    });
  }

  /** Starts the informers; resolves once all three listed and the first members are known. */
  ready(): Promise<void> {
    this.started ??= (async () => {
      const informers = [this.orchestrators, this.agentConfigs, this.slices] as Informer[];
      for (const informer of informers) {
        this.unsubscribers.push(informer.on(() => this.isSynced && this.sync()));
        informer.start();
      }
      await Promise.all(informers.map((i) => i.synced()));
      this.isSynced = true;
      this.sync();
    })();
    return this.started;
  }

  /** Whether the first lists are in (GET /readyz). */
  get synced(): boolean {
    return this.isSynced;
  }

  members(): readonly MemberInit[] {
    return [...this.current.values()];
  }

  desired(): number {
    return this.want;
  }

  subscribe(listener: (change: MemberChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` after any watched object changed (the selection or its status may have moved). */
  onUpdate(listener: () => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** The Orchestrator STEWARD_ORCHESTRATOR_NAME as cached, status included. */
  orchestrator(): (KubeObject & { status?: Record<string, unknown> }) | undefined {
    return this.orchestrators.get(this.options.namespace, this.options.orchestrator) as
      (KubeObject & { status?: Record<string, unknown> }) | undefined;
  }

  /** The AgentConfigs the Orchestrator selects now, by name, as cached (status included). */
  selected(): SelectedAgentConfig[] {
    const orchestrator = this.orchestrator() as
      (KubeObject & { spec?: { agentPool?: { selector?: LabelSelector } } }) | undefined;
    if (!orchestrator || orchestrator.metadata.deletionTimestamp) return [];
    const selector = orchestrator.spec?.agentPool?.selector;
    return this.agentConfigs
      .list(this.options.namespace)
      .filter((a) => !a.metadata.deletionTimestamp && matchesSelector(a.metadata.labels, selector))
      .sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribers.splice(0)) u();
    this.listeners.clear();
    this.updateListeners.clear();
    await Promise.all([this.orchestrators.stop(), this.agentConfigs.stop(), this.slices.stop()]);
  }

  /** The endpoints the cluster shows now, by member key. */
  private wanted(): { endpoints: Map<string, Endpoint>; desired: number } {
    const selected = this.selected();
    const byService = new Map(
      selected.map((a) => [agentServiceName(String(a.metadata.name)), `${this.options.namespace}/${a.metadata.name}`]),
    );
    const endpoints = new Map<string, Endpoint>();
    for (const slice of this.slices.list(this.options.namespace)) {
      const agentConfig = byService.get(slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? '');
      if (!agentConfig) continue;
      const port = this.slicePort(slice);
      if (port === undefined) continue;
      for (const e of slice.endpoints ?? []) {
        // NB: as kube-proxy does, an absent `ready` counts as ready; a terminating pod's endpoint is ready=false.
        const address = e.addresses?.[0];
        if (!address || e.conditions?.ready === false) continue;
        const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
        // The same pod may show in two slices while the controller moves it; one member.
        endpoints.set(`${agentConfig}@${url}`, { agentConfig, url, pod: e.targetRef?.name });
      }
    }
    return { endpoints, desired: selected.reduce((sum, a) => sum + (a.spec?.replicas ?? 1), 0) };
  }

  /** The port named `http`, or the slice's only port. */
  private slicePort(slice: Slice): number | undefined {
    const ports = slice.ports ?? [];
    const port = ports.find((p) => p.name === AGENT_PORT_NAME) ?? (ports.length === 1 ? ports[0] : undefined);
    if (port?.port !== undefined) return port.port;
    const name = String(slice.metadata.name);
    if (!this.warned.has(name)) {
      this.warned.add(name);
      this.options.log?.warn(
        { endpointSlice: name },
        `endpoint slice has no port named ${AGENT_PORT_NAME}; its endpoints are ignored`,
      );
    }
    return undefined;
  }

  private sync(): void {
    const { endpoints, desired } = this.wanted();
    const desiredChanged = desired !== this.want;
    this.want = desired;
    const removed: string[] = [];
    const added: MemberInit[] = [];
    for (const key of this.current.keys()) {
      if (endpoints.has(key)) continue;
      removed.push(key);
      this.current.delete(key);
    }
    for (const [key, e] of endpoints) {
      if (this.current.has(key)) continue;
      const member: MemberInit = {
        key,
        kind: 'remote',
        agentConfig: e.agentConfig,
        agent: new RemoteAgent({ ...this.agentOptions, endpoint: e.url, ...(e.pod ? { id: e.pod } : {}) }),
      };
      this.current.set(key, member);
      added.push(member);
    }
    if (removed.length > 0 || added.length > 0 || desiredChanged) {
      for (const l of this.listeners) l({ added, removed });
    }
    for (const l of this.updateListeners) l();
  }
}
