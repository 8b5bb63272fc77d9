/**
 * `Policy.status.byPod[]`: this gateway pod's own entry in every Policy of its namespace — the generation it has
 * seen, whether that generation is in force, and why not. Other pods and the operator write the same list, so the
 * entry is written by replacing the status with the resourceVersion read and, on 409, re-reading and re-applying
 * (docs/cluster-mode.md). Written only when the entry differs, at most once per object per interval.
 */
import type { PolicyPodStatus, PolicyResource } from '../../api/index.js';
import { Resources, updateStatus, jsonEqual, type KubeClient, type KubeObject } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import type { PolicyLoadState } from '../policy/engine.js';
import type { DeclarativeSource } from '../source/types.js';
import { StatusThrottle } from './throttle.js';

/** The part of the policy engine the reporter reads. */
export interface PolicyLoadStates {
  loadStates(): readonly PolicyLoadState[];
  onCompiled(listener: (states: readonly PolicyLoadState[]) => void): () => void;
}

export interface PolicyStatusReporterOptions {
  client: KubeClient;
  /** The Kubernetes source: its Policy events and the objects as the server holds them. */
  source: DeclarativeSource & {
    readonly namespace: string;
    object(kind: 'Policy', name: string): KubeObject | undefined;
  };
  engine: PolicyLoadStates;
  /** This pod's name (STEWARD_POD_NAME). */
  pod: string;
  /** STEWARD_STATUS_MIN_INTERVAL_MS */
  minIntervalMs: number;
  fieldManager?: string;
  log?: Logger;
}

/** Longest error kept in an entry (the schema's bound). */
const MAX_ERROR_CHARS = 4096;

type PolicyObject = KubeObject & { status?: PolicyResource['status'] };

export class PolicyStatusReporter {
  private readonly throttle: StatusThrottle;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly opts: PolicyStatusReporterOptions) {
    this.throttle = new StatusThrottle(opts.minIntervalMs, opts.log);
  }

  /** Reports the current states, then follows every compile and every change of a Policy (someone's status write). */
  start(): void {
    this.stops.push(this.opts.engine.onCompiled(() => this.sync()));
    this.stops.push(
      this.opts.source.subscribe((events) => events.some((e) => e.resource.kind === 'Policy') && this.sync()),
    );
    this.sync();
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.throttle.close();
  }

  /** The entry this pod wants for a Policy, or undefined when the Policy is not of its namespace. */
  entryFor(name: string): PolicyPodStatus | undefined {
    const state = this.opts.engine
      .loadStates()
      .find((s) => s.name === name && s.namespace === this.opts.source.namespace);
    return state && podEntry(this.opts.pod, state);
  }

  private sync(): void {
    for (const state of this.opts.engine.loadStates()) {
      if (state.namespace !== this.opts.source.namespace) continue;
      const current = this.opts.source.object('Policy', state.name) as PolicyObject | undefined;
      const own = current?.status?.byPod?.find((e) => e.pod === this.opts.pod);
      if (current && !jsonEqual(own, podEntry(this.opts.pod, state)))
        this.throttle.schedule(state.name, () => this.write(state.name));
    }
  }

  private async write(name: string): Promise<void> {
    const { client, source, pod } = this.opts;
    let attempt = 0;
    const result = await updateStatus<PolicyObject>(
      client,
      Resources.Policy,
      source.namespace,
      name,
      (obj) => {
        // NB: the cached object first; after a 409 the fresh one, which may hold a newer generation's entry of ours.
        attempt++;
        const entry = this.entryFor(name);
        if (!entry) return undefined;
        const list = obj.status?.byPod ?? [];
        const i = list.findIndex((e) => e.pod === pod);
        if (i >= 0 && jsonEqual(list[i], entry)) return undefined;
        const byPod = i >= 0 ? list.map((e, j) => (j === i ? entry : e)) : [...list, entry];
        return { ...obj.status, byPod };
      },
      {
        current: source.object('Policy', name) as PolicyObject | undefined,
        fieldManager: this.opts.fieldManager ?? 'steward-gateway',
      },
    );
    if (result === 'updated')
      this.opts.log?.debug({ policy: name, pod, attempts: attempt }, 'policy pod status written');
  }
}

function podEntry(pod: string, state: PolicyLoadState): PolicyPodStatus {
  return {
    pod,
    observedGeneration: state.generation,
    loaded: state.loaded,
    ...(state.error !== undefined ? { error: state.error.slice(0, MAX_ERROR_CHARS) } : {}),
  };
}
