/**
 * The agent pool as the cluster sees it: `Orchestrator.status.pool` and each selected `AgentConfig.status.healthyAgents`
 * and `AgentConfig.status.llm` (the provider its agents report they call: a fallback shows there)
 * (docs/cluster-mode.md, "Who writes which status field"). Only the orchestrator replica holding the Lease
 * `O-orchestrator-status` writes, by merge patch of those fields alone (the operator owns conditions and
 * readyReplicas), only when a figure differs from the cached object, and at most once per `minIntervalMs` per
 * object, with a trailing write so that the last state lands. A steady state makes no requests.
 */
import {
  jsonEqual,
  patchStatus,
  Resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import type { AgentPool, EndpointSliceSource } from '../orchestrator/pool/index.js';
import { LeaseRole } from './lease-role.js';
import { StatusThrottle } from './throttle.js';

export interface PoolStatusWriterOptions {
  client: KubeClient;
  namespace: string;
  /** STEWARD_ORCHESTRATOR_NAME: the Lease is `<name>-orchestrator-status`. */
  orchestrator: string;
  /** This replica's name in the Lease (STEWARD_POD_NAME). */
  identity: string;
  pool: Pick<AgentPool, 'status' | 'healthyByAgentConfig' | 'llmByAgentConfig' | 'onHealth'>;
  /** The selected AgentConfigs and the Orchestrator, as the discovery's informers cache them. */
  selection: Pick<EndpointSliceSource, 'orchestrator' | 'selected' | 'onUpdate'>;
  /** STEWARD_STATUS_MIN_INTERVAL_MS: least time between two writes of one object. */
  minIntervalMs: number;
  /** Lease timings; tests shorten them. @default the LeaderElector's */
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  log?: Logger;
}

/** The Lease the status writer holds. */
export const poolStatusLeaseName = (orchestrator: string): string => `${orchestrator}-orchestrator-status`;

type StatusObject = KubeObject & { status?: Record<string, unknown> };

interface Target {
  ref: ResourceRef;
  object: StatusObject;
  fields: Record<string, unknown>;
}

export class PoolStatusWriter {
  private readonly role: LeaseRole;
  private readonly throttle: StatusThrottle;
  private readonly unsubscribers: (() => void)[] = [];
  /** What this replica last wrote per object, and the resourceVersion its cache had then (see `inFlight`). */
  private readonly written = new Map<string, { resourceVersion?: string; fields: Record<string, unknown> }>();
  private holding = false;
  /** Status patches sent by this replica (tests, logs). */
  writes = 0;

  constructor(private readonly options: PoolStatusWriterOptions) {
    this.throttle = new StatusThrottle(options.minIntervalMs, options.log);
    this.role = new LeaseRole({
      client: options.client,
      namespace: options.namespace,
      lease: poolStatusLeaseName(options.orchestrator),
      identity: options.identity,
      timing: options.lease,
      log: options.log,
      onChange: (holding) => {
        this.holding = holding;
        if (holding) {
          options.log?.info({ lease: poolStatusLeaseName(options.orchestrator) }, 'writing the pool status');
          this.flush();
        } else {
          this.throttle.cancel();
          this.written.clear();
        }
      },
    });
  }

  start(): this {
    this.unsubscribers.push(
      this.options.pool.onHealth(() => this.flush()),
      this.options.selection.onUpdate(() => this.flush()),
    );
    this.role.start();
    return this;
  }

  get leading(): boolean {
    return this.holding;
  }

  /** Stops writing and gives the Lease up, so that another replica writes at once. */
  async stop(): Promise<void> {
    for (const u of this.unsubscribers.splice(0)) u();
    this.throttle.close();
    await this.role.stop();
    this.holding = false;
  }

  /** The figures each object should show now. */
  private targets(): Map<string, Target> {
    const { pool, selection, namespace } = this.options;
    const out = new Map<string, Target>();
    const orchestrator = selection.orchestrator();
    if (orchestrator)
      out.set(`orchestrators/${orchestrator.metadata.name}`, {
        ref: Resources.Orchestrator,
        object: orchestrator,
        fields: { pool: pool.status() },
      });
    const healthy = pool.healthyByAgentConfig();
    const routes = pool.llmByAgentConfig();
    for (const config of selection.selected()) {
      const key = `${namespace}/${config.metadata.name}`;
      const llm = routes.get(key);
      // NB: `llm` stays as last reported while no healthy member says otherwise (a scale to zero keeps it).
      const fields = {
        healthyAgents: healthy.get(key) ?? 0,
        ...(llm
          ? {
              llm: {
                provider: llm.provider,
                ...(llm.model ? { model: llm.model } : {}),
                fallback: llm.fallback,
                ...(llm.requested ? { requestedProvider: llm.requested } : {}),
              },
            }
          : {}),
      };
      out.set(`agentconfigs/${config.metadata.name}`, { ref: Resources.AgentConfig, object: config, fields });
    }
    return out;
  }

  /** Schedules a write of every object whose cached status differs from its figures. */
  private flush(): void {
    if (!this.holding) return;
    for (const [key, target] of this.targets()) {
      if (this.upToDate(key, target)) continue;
      // NB: the write re-reads the figures and the cache when it runs (after the interval), so the last state lands.
      this.throttle.schedule(key, () => this.write(key));
    }
  }

  /**
   * Whether the object shows the figures already, or this replica's write of them is on its way: the informer
   * has not shown it yet (the cache still has the resourceVersion it had when the write went out).
   */
  private upToDate(key: string, { object, fields }: Target): boolean {
    const status = object.status ?? {};
    if (Object.entries(fields).every(([k, v]) => jsonEqual(v, status[k]))) return true;
    const w = this.written.get(key);
    return w !== undefined && w.resourceVersion === object.metadata.resourceVersion && jsonEqual(w.fields, fields);
  }

  private async write(key: string): Promise<void> {
    const target = this.holding ? this.targets().get(key) : undefined;
    if (!target || this.upToDate(key, target)) return;
    this.written.set(key, { resourceVersion: target.object.metadata.resourceVersion, fields: target.fields });
    this.writes++;
    try {
      const result = await patchStatus(this.options.client, target.ref, target.object, target.fields, {
        fieldManager: 'steward-orchestrator',
      });
      this.options.log?.debug({ object: key, result, ...target.fields }, 'pool status written');
    } catch (err) {
      this.written.delete(key);
      throw err;
    }
  }
}
