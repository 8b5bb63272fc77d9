/**
 * One pod on the node: its IP, volumes and environments, a ContainerRunner per container, the status it
 * writes back (phase, conditions, containerStatuses), and graceful termination when it is deleted.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { ContainerRunner } from './container.js';
import { containerEnv, EnvError, expand, type EnvSources } from './env.js';
import type { EventRecorder } from './events.js';
import { entrypointFor } from './images.js';
import type { LogStore } from './logs.js';
import { Conditions, podPhase } from './pod-status.js';
import { containerRoot, materialiseServiceAccount, materialiseVolumes } from './volumes.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface PodWorkerDeps {
  api: ClusterApi;
  clock: TestClock;
  node: string;
  nodeIP: string;
  images: Record<string, string[]>;
  backoffBaseMs: number;
  backoffMaxMs: number;
  logs: LogStore;
  record: EventRecorder;
  /** Folder for this pod's volumes and container roots. */
  dir: string;
  /** Variables every container gets first (API server address, DNS preload...). */
  baseEnv: (namespace: string) => Record<string, string>;
  serviceVars: (namespace: string) => Record<string, string>;
  log: (msg: string) => void;
  /** Mounted in every container unless the pod sets automountServiceAccountToken: false. */
  serviceAccount?: { token: string; caCert?: string };
}

export class PodWorker {
  private runners: ContainerRunner[] = [];
  private readonly conditions = new Conditions();
  private startTime: string;
  private writeScheduled = false;
  private stopped: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private serviceVars: Record<string, string> | undefined;

  constructor(
    private pod: JsonObject,
    readonly ip: string,
    private readonly d: PodWorkerDeps,
  ) {
    this.startTime = d.clock.nowIso();
  }

  get namespace(): string {
    return String(o(this.pod.metadata).namespace);
  }

  get name(): string {
    return String(o(this.pod.metadata).name);
  }

  get uid(): unknown {
    return o(this.pod.metadata).uid;
  }

  /** terminationGracePeriodSeconds in ms. */
  get graceMs(): number {
    return Number(this.spec.terminationGracePeriodSeconds ?? 30) * 1000;
  }

  get terminating(): boolean {
    return this.stopped !== undefined;
  }

  private get spec(): JsonObject {
    return o(this.pod.spec);
  }

  /** The newest copy of the pod (the worker reads deletion and metadata from it). */
  update(pod: JsonObject): void {
    this.pod = pod;
  }

  async start(): Promise<void> {
    const now = this.d.clock.nowIso();
    this.conditions.set('PodScheduled', true, now);
    this.conditions.set('PodReadyToStartContainers', true, now);
    this.conditions.set('Initialized', true, now);
    this.writeStatus();
    await this.prepare();
  }

  /**
   * Materialises the volumes and starts every container. A missing Secret, ConfigMap or key leaves the
   * containers waiting with CreateContainerConfigError, and the kubelet tries again after the back-off base.
   */
  private async prepare(): Promise<void> {
    if (this.stopped) return;
    const sources = {
      secret: (n: string) => this.d.api.tryGet('secrets', this.namespace, n),
      configMap: (n: string) => this.d.api.tryGet('configmaps', this.namespace, n),
    };
    let error: string | undefined;
    try {
      await materialiseVolumes(this.d.dir, this.pod, sources);
      if (this.d.serviceAccount && this.spec.automountServiceAccountToken !== false) {
        await materialiseServiceAccount(this.d.dir, this.namespace, this.d.serviceAccount);
      }
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      error = err.message;
    }
    // Service variables are those of the Services that existed at the first attempt.
    this.serviceVars ??= this.spec.enableServiceLinks === false ? {} : this.d.serviceVars(this.namespace);
    const runners: ContainerRunner[] = [];
    for (const c of a(this.spec.containers).map(o)) {
      const made = await this.makeRunner(c, sources, this.serviceVars);
      error ??= made.error;
      runners.push(made.runner);
    }
    if (this.stopped) return;
    this.runners = runners;
    if (error) {
      for (const r of runners) {
        r.state = { waiting: { reason: 'CreateContainerConfigError', message: error } };
        this.d.record(this.pod, 'Warning', 'Failed', `Error: ${error}`, `spec.containers{${r.name}}`);
      }
      this.writeStatus();
      this.retry = setTimeout(
        () =>
          void this.prepare().catch((err: Error) => this.d.log(`pod ${this.namespace}/${this.name}: ${err.message}`)),
        this.d.backoffBaseMs,
      );
      return;
    }
    for (const r of runners) r.start();
    this.writeStatus();
  }

  private async makeRunner(
    c: JsonObject,
    sources: Omit<EnvSources, 'serviceVars'>,
    serviceVars: Record<string, string>,
  ): Promise<{ runner: ContainerRunner; error?: string }> {
    const withIP: JsonObject = {
      ...this.pod,
      status: {
        ...o(this.pod.status),
        podIP: this.ip,
        podIPs: [{ ip: this.ip }],
        hostIP: this.d.nodeIP,
        hostIPs: [{ ip: this.d.nodeIP }],
      },
    };
    const mountToken = this.d.serviceAccount !== undefined && this.spec.automountServiceAccountToken !== false;
    const root = await containerRoot(this.d.dir, c, mountToken);
    let env: Record<string, string> = {};
    let error: string | undefined;
    try {
      const base: Record<string, string> = {
        ...this.d.baseEnv(this.namespace),
        HOSTNAME: this.name,
        HOME: root,
        STEWARD_POD_ROOT: root,
        STEWARD_KUBE_POD_IP: this.ip,
      };
      env = {
        ...base,
        ...containerEnv(withIP, c, { ...sources, serviceVars: { ...serviceVars, STEWARD_POD_ROOT: root } }),
      };
      // A pod's own NODE_OPTIONS keeps the DNS preload.
      if (base.NODE_OPTIONS && env.NODE_OPTIONS !== base.NODE_OPTIONS)
        env.NODE_OPTIONS = `${base.NODE_OPTIONS} ${env.NODE_OPTIONS ?? ''}`.trim();
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      error = err.message;
    }
    const entry = entrypointFor(String(c.image ?? ''), this.d.images);
    const command = a(c.command).map((x) => expand(String(x), env));
    const args = a(c.args).map((x) => expand(String(x), env));
    const argv = command.length ? [...command, ...args] : entry ? [...entry, ...args] : undefined;
    const runner = new ContainerRunner(
      {
        namespace: this.namespace,
        pod: this.name,
        container: c,
        argv,
        env,
        cwd: await this.workingDir(c, root),
        podIP: this.ip,
        restartPolicy: (this.spec.restartPolicy as 'Always' | 'OnFailure' | 'Never' | undefined) ?? 'Always',
        backoffBaseMs: this.d.backoffBaseMs,
        backoffMaxMs: this.d.backoffMaxMs,
        terminationGraceMs: this.graceMs,
        logs: this.d.logs,
        record: (type, reason, message) =>
          this.d.record(this.pod, type, reason, message, `spec.containers{${String(c.name)}}`),
        changed: () => this.writeStatus(),
      },
      () => this.d.clock.nowIso(),
    );
    return { runner, error };
  }

  /** workingDir as given when it exists on this machine, else under the container's root. */
  private async workingDir(c: JsonObject, root: string): Promise<string> {
    const wd = typeof c.workingDir === 'string' ? c.workingDir : '';
    if (!wd) return root;
    if (isAbsolute(wd) && existsSync(wd)) return wd;
    const under = join(root, wd);
    await mkdir(under, { recursive: true });
    return under;
  }

  /** Stops every container (preStop, SIGTERM, SIGKILL after `graceMs`); idempotent. */
  stop(graceMs: number): Promise<void> {
    clearTimeout(this.retry);
    this.stopped ??= (async () => {
      await Promise.all(this.runners.map((r) => r.stop(graceMs)));
      await rm(this.d.dir, { recursive: true, force: true });
    })();
    return this.stopped;
  }

  /** Schedules one status write for all changes of this tick. */
  private writeStatus(): void {
    if (this.writeScheduled) return;
    this.writeScheduled = true;
    setImmediate(() => {
      this.writeScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const now = this.d.clock.nowIso();
    const views = this.runners.map((r) => {
      const st = r.status();
      const term = o(o(st.state).terminated);
      return {
        ready: r.ready,
        ran: r.restartCount > 0 || !('waiting' in r.state) || r.lastState !== undefined,
        finished: r.finished,
        exitCode: typeof term.exitCode === 'number' ? term.exitCode : undefined,
      };
    });
    const allReady = views.length > 0 && views.every((v) => v.ready);
    const reason = allReady ? undefined : 'ContainersNotReady';
    this.conditions.set('ContainersReady', allReady, now, reason);
    this.conditions.set('Ready', allReady, now, reason);
    const phase = this.runners.length ? podPhase(views) : 'Pending';
    const status: JsonObject = {
      phase,
      conditions: this.conditions.list(),
      hostIP: this.d.nodeIP,
      hostIPs: [{ ip: this.d.nodeIP }],
      podIP: this.ip,
      podIPs: [{ ip: this.ip }],
      startTime: this.startTime,
      containerStatuses: this.runners.length
        ? this.runners.map((r) => r.status())
        : a(this.spec.containers).map((c) => ({
            name: o(c).name,
            image: o(c).image,
            imageID: '',
            ready: false,
            restartCount: 0,
            started: false,
            state: { waiting: { reason: 'ContainerCreating' } },
            lastState: {},
          })),
    };
    try {
      this.d.api.patch(
        'pods',
        this.namespace,
        this.name,
        { status },
        { subresource: 'status', fieldManager: 'kubelet' },
      );
    } catch (err) {
      // The pod may be gone already (force deletion, namespace cleanup); nothing to report then.
      this.d.log(`status of ${this.namespace}/${this.name} not written: ${(err as Error).message}`);
    }
  }
}
