/**
 * One container of a pod as a child process: Waiting/Running/Terminated state, restarts by
 * restartPolicy with exponential back-off (CrashLoopBackOff), startup/liveness/readiness probes,
 * preStop hooks and graceful stop (SIGTERM, then SIGKILL after the grace period).
 */
import type { ChildProcess } from 'node:child_process';
import { isObject, type JsonObject } from '../schema/types.js';
import type { LogStore } from './logs.js';
import { signalGroup, spawnTracked } from './processes.js';
import { check, ProbeWorker, type ProbeTarget } from './probes.js';

export interface ContainerSpec {
  namespace: string;
  pod: string;
  container: JsonObject;
  /** The argv to run; undefined when the image is not mapped (ErrImagePull). */
  argv: string[] | undefined;
  env: Record<string, string>;
  cwd: string;
  podIP: string;
  restartPolicy: 'Always' | 'OnFailure' | 'Never';
  /** First back-off delay; doubles per restart. @default 10 s */
  backoffBaseMs: number;
  /** @default 5 min */
  backoffMaxMs: number;
  /** The pod's terminationGracePeriodSeconds, in ms: for restarts after a failed liveness probe. */
  terminationGraceMs: number;
  logs: LogStore;
  /** Records an event about the pod (fieldPath spec.containers{name}). */
  record: (type: 'Normal' | 'Warning', reason: string, message: string) => void;
  /** Called after every state change. */
  changed: () => void;
}

export type ContainerState = { waiting: JsonObject } | { running: JsonObject } | { terminated: JsonObject };

/** A container that ran this long has its back-off reset (the kubelet's 2 × max back-off). */
const BACKOFF_RESET_FACTOR = 2;

export class ContainerRunner {
  state: ContainerState = { waiting: { reason: 'ContainerCreating' } };
  lastState: ContainerState | undefined;
  restartCount = 0;
  ready = false;
  started = false;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private probes: ProbeWorker[] = [];
  private backoffTimer: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  private stopping = false;
  private runs = 0;

  constructor(
    private readonly s: ContainerSpec,
    private readonly now: () => string,
  ) {}

  get name(): string {
    return String(this.s.container.name);
  }

  get image(): string {
    return String(this.s.container.image ?? '');
  }

  /** True when the container will not run again (terminated under Never/OnFailure rules, or stopped). */
  get finished(): boolean {
    return 'terminated' in this.state && !this.backoffTimer && !this.child;
  }

  start(): void {
    if (!this.s.argv) {
      this.state = {
        waiting: {
          reason: 'ErrImagePull',
          message: `image ${this.image} is not mapped to a command (startTestCluster workloads.images)`,
        },
      };
      this.s.record('Warning', 'Failed', `Failed to pull image "${this.image}": not mapped to a command`);
      this.s.changed();
      return;
    }
    this.run();
  }

  private run(): void {
    if (this.stopping) return;
    const argv = this.s.argv!;
    this.s.record('Normal', 'Pulled', `Container image "${this.image}" already present on machine`);
    this.s.record('Normal', 'Created', `Created container: ${this.name}`);
    this.s.logs.started(this.s.namespace, this.s.pod, this.name);
    this.runs++;
    const startedAt = this.now();
    const startedMs = Date.now();
    let child: ChildProcess;
    try {
      child = spawnTracked(argv, { env: this.s.env, cwd: this.s.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      this.onExit(128, null, startedAt, startedMs, (err as Error).message);
      return;
    }
    this.child = child;
    const append = (d: Buffer): void => this.s.logs.append(this.s.namespace, this.s.pod, this.name, d.toString());
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        this.onExit(128, null, startedAt, startedMs, err.message);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.onExit(code, signal, startedAt, startedMs);
        resolve();
      });
    });
    this.state = { running: { startedAt } };
    this.s.record('Normal', 'Started', `Started container ${this.name}`);
    this.startProbes();
    this.s.changed();
  }

  private onExit(
    code: number | null,
    signal: NodeJS.Signals | null,
    startedAt: string,
    startedMs: number,
    error?: string,
  ): void {
    if (this.child === undefined && !error) return;
    this.child = undefined;
    this.stopProbes();
    this.ready = false;
    this.started = false;
    this.s.logs.stopped(this.s.namespace, this.s.pod, this.name);
    const exitCode = code ?? (signal === 'SIGKILL' ? 137 : signal === 'SIGTERM' ? 143 : 1);
    const terminated: JsonObject = {
      exitCode,
      reason: error ? 'StartError' : exitCode === 0 ? 'Completed' : 'Error',
      startedAt,
      finishedAt: this.now(),
      containerID: `steward://${this.s.namespace}.${this.s.pod}.${this.name}.${this.runs}`,
    };
    if (error) terminated.message = error;
    if (signal) terminated.signal = ({ SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0;
    this.state = { terminated };
    const restart =
      !this.stopping && (this.s.restartPolicy === 'Always' || (this.s.restartPolicy === 'OnFailure' && exitCode !== 0));
    if (restart) this.scheduleRestart(Date.now() - startedMs);
    this.s.changed();
  }

  private scheduleRestart(ranMs: number): void {
    if (ranMs > BACKOFF_RESET_FACTOR * this.s.backoffMaxMs) this.backoffMs = 0;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs === 0 ? this.s.backoffBaseMs : this.backoffMs * 2, this.s.backoffMaxMs);
    const restart = (): void => {
      this.backoffTimer = undefined;
      this.lastState = this.state;
      this.restartCount++;
      this.run();
    };
    if (delay === 0) {
      this.backoffTimer = setTimeout(restart, 0);
      return;
    }
    this.lastState = this.state;
    const message = `back-off ${Math.round(delay / 1000)}s restarting failed container=${this.name} pod=${this.s.pod}`;
    this.state = { waiting: { reason: 'CrashLoopBackOff', message } };
    this.s.record('Warning', 'BackOff', `Back-off restarting failed container ${this.name} in pod ${this.s.pod}`);
    this.backoffTimer = setTimeout(restart, delay);
  }

  private probeTarget = (): ProbeTarget => ({
    podIP: this.s.podIP,
    container: this.s.container,
    env: this.s.env,
    cwd: this.s.cwd,
  });

  private startProbes(): void {
    const c = this.s.container;
    const startReadyAndLive = (): void => {
      this.started = true;
      if (isObject(c.livenessProbe))
        this.addProbe(
          new ProbeWorker('liveness', c.livenessProbe, this.probeTarget, (_ok, msg, failed) =>
            this.onLiveness(failed, msg, 'Liveness'),
          ),
        );
      if (isObject(c.readinessProbe)) {
        this.addProbe(
          new ProbeWorker('readiness', c.readinessProbe, this.probeTarget, (ok, msg) => {
            if (msg) this.s.record('Warning', 'Unhealthy', `Readiness probe failed: ${msg}`);
            if (this.ready !== ok) {
              this.ready = ok;
              this.s.changed();
            }
          }),
        );
      } else this.ready = true;
      this.s.changed();
    };
    if (isObject(c.startupProbe)) {
      this.addProbe(
        new ProbeWorker('startup', c.startupProbe, this.probeTarget, (ok, msg, failed) => {
          if (ok && !msg) startReadyAndLive();
          else this.onLiveness(failed, msg, 'Startup');
        }),
      );
    } else startReadyAndLive();
  }

  private addProbe(p: ProbeWorker): void {
    this.probes.push(p);
    p.start();
  }

  /** A liveness or startup probe result: a failure is reported; reaching failureThreshold restarts. */
  private onLiveness(failed: boolean, msg: string, which: 'Liveness' | 'Startup'): void {
    if (msg) this.s.record('Warning', 'Unhealthy', `${which} probe failed: ${msg}`);
    if (!failed || !this.child) return;
    this.s.record('Normal', 'Killing', `Container ${this.name} failed ${which.toLowerCase()} probe, will be restarted`);
    this.stopProbes();
    void this.kill(this.graceMs(), false);
  }

  private graceMs(): number {
    return this.s.terminationGraceMs;
  }

  private stopProbes(): void {
    for (const p of this.probes) p.stop();
    this.probes = [];
  }

  /** Runs the preStop hook, SIGTERMs the process group, and SIGKILLs it when `graceMs` has passed. */
  private async kill(graceMs: number, runPreStop: boolean): Promise<void> {
    const child = this.child;
    if (!child) return;
    const deadline = Date.now() + graceMs;
    const preStop = isObject(this.s.container.lifecycle) ? this.s.container.lifecycle.preStop : undefined;
    if (runPreStop && isObject(preStop)) {
      const hook = { ...preStop, timeoutSeconds: Math.max(1, Math.ceil(graceMs / 1000)) };
      const r = await check(hook, this.probeTarget());
      if (!r.ok) this.s.record('Warning', 'FailedPreStopHook', `PreStopHook failed: ${r.message}`);
    }
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), Math.max(0, deadline - Date.now()));
    await this.exited;
    clearTimeout(timer);
  }

  /** Stops for good (pod deletion, cluster close): no restart afterwards. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.backoffTimer);
    this.backoffTimer = undefined;
    this.stopProbes();
    if (this.child) this.s.record('Normal', 'Killing', `Stopping container ${this.name}`);
    await this.kill(graceMs, true);
  }

  /** The containerStatuses entry. */
  status(): JsonObject {
    const st: JsonObject = {
      name: this.name,
      image: this.image,
      imageID: `${this.image}@sha256:${'0'.repeat(64)}`,
      ready: this.ready,
      started: 'running' in this.state && this.started,
      restartCount: this.restartCount,
      state: this.state,
      lastState: this.lastState ?? {},
    };
    if (this.runs > 0) st.containerID = `steward://${this.s.namespace}.${this.s.pod}.${this.name}.${this.runs}`;
    return st;
  }
}
