/**
 * A small pool of worker threads that evaluate large policy inputs off the request path. A job waits for an idle
 * worker (at most `deadline + grace` while some worker is ready), then runs for at most `deadline + grace`; a
 * worker that overruns is terminated and replaced, and the job answers `isolation_timeout`. Nothing here
 * rejects: every job settles with a result or a failure.
 */
import type { Worker } from 'node:worker_threads';
import type { DecisionLimits } from '../../../rego/index.js';
import type { Logger } from '../../../platform/log.js';
import { startWorker, workerEntry } from '../../../platform/worker.js';
import type { FailureClass } from '../failure.js';
import type { PlanEntry, PlanResult } from '../plan.js';
import type { PolicyInput } from '../types.js';
import type { FromWorker, ToWorker } from './protocol.js';

export interface IsolationOptions {
  /** worker threads @default 2 */
  workers?: number;
  /** time a worker gets beyond the evaluation deadline before it is terminated @default 100 */
  graceMs?: number;
  /** longest wait for a worker while every worker is still compiling (start, policy change) @default 10_000 */
  loadWaitMs?: number;
  /** the worker module (tests: a worker that misbehaves) @default ./worker.js beside this module */
  workerEntry?: URL;
  /**
   * When the workers start unless a job or `ready()` starts them sooner. @default never: the first job (an input
   * above the inline threshold) or `ready()` starts them
   */
  startDelayMs?: number;
}

export type IsolatedOutcome = { result: PlanResult } | { failure: FailureClass; message: string };

interface Job {
  id: number;
  key: string;
  input: PolicyInput;
  limits: Required<DecisionLimits>;
  /** The longest the plan may take with these limits (policies with deadlines of their own add theirs). */
  budgetMs: number;
  settle: (o: IsolatedOutcome) => void;
  timer?: NodeJS.Timeout;
  queuedAt: number;
}

interface Slot {
  worker: Worker;
  /** the generation of plans the worker has compiled; it takes jobs only when current */
  generation: number;
  job?: Job;
}

export class IsolatePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private plans: [string, PlanEntry[]][] = [];
  private generation = 0;
  private nextId = 1;
  private closed = false;
  private readonly graceMs: number;
  private readonly loadWaitMs: number;
  private readonly workerEntry: URL;
  private waiters: (() => void)[] = [];
  /** worker exits since a worker last loaded its plans */
  private crashes = 0;
  private readonly workers: number;
  private started = false;
  private readonly startTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    options: IsolationOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 100;
    this.loadWaitMs = options.loadWaitMs ?? 10_000;
    this.workerEntry = options.workerEntry ?? workerEntry('worker', import.meta.url);
    this.workers = options.workers ?? 2;
    // NB: not at once, and by default not before they are needed. Each worker loads the engine, compiles every plan
    // and warms the pack up: about a second of CPU that a small machine would take from the start-up of the process
    // (docs/benchmarks.md, Start-up), and ~66 MB of resident memory per worker that a gateway whose inputs all stay
    // under the inline threshold never uses (docs/benchmarks.md, LLM proxy). The first job waits for them as for any
    // loading worker (at most `loadWaitMs`).
    if (options.startDelayMs !== undefined) {
      this.startTimer = setTimeout(() => this.start(), options.startDelayMs);
      this.startTimer.unref();
    }
  }

  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    clearTimeout(this.startTimer);
    for (let i = 0; i < this.workers; i++) this.slots.push(this.spawn());
  }

  /** Sends the plans of every configured scope to every worker; they recompile (unchanged keys are kept). */
  load(plans: [string, PlanEntry[]][]): void {
    this.plans = plans;
    this.generation++;
    for (const s of this.slots) this.post(s, { t: 'load', generation: this.generation, plans });
  }

  /** Resolves once every worker has compiled the current plans. */
  ready(): Promise<void> {
    this.start();
    if (this.slots.every((s) => s.generation === this.generation)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  evaluate(
    key: string,
    input: PolicyInput,
    limits: Required<DecisionLimits>,
    budgetMs = limits.deadlineMs,
  ): Promise<IsolatedOutcome> {
    this.start();
    return new Promise((settle) => {
      if (this.closed) return settle({ failure: 'engine_exception', message: 'the policy engine is closed' });
      const job: Job = { id: this.nextId++, key, input, limits, budgetMs, settle, queuedAt: performance.now() };
      this.queue.push(job);
      this.armQueued(job);
      this.dispatch();
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.startTimer);
    for (const j of this.queue.splice(0))
      this.finish(j, { failure: 'engine_exception', message: 'the policy engine is closed' });
    for (const s of this.slots) {
      if (s.job) this.finish(s.job, { failure: 'engine_exception', message: 'the policy engine is closed' });
      void s.worker.terminate();
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.workerEntry), generation: 0 };
    slot.worker.unref();
    slot.worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    slot.worker.on('error', (err) => this.log.error({ err }, 'policy worker failed'));
    slot.worker.on('exit', () => this.onExit(slot));
    if (this.generation > 0) this.post(slot, { t: 'load', generation: this.generation, plans: this.plans });
    return slot;
  }

  private post(slot: Slot, m: ToWorker): void {
    slot.worker.postMessage(m);
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.t === 'loaded') {
      slot.generation = m.generation;
      this.crashes = 0;
      if (this.slots.every((s) => s.generation === this.generation)) for (const w of this.waiters.splice(0)) w();
    } else if (slot.job?.id === m.id) {
      const job = slot.job;
      slot.job = undefined;
      this.finish(job, m.t === 'result' ? { result: m.result } : { failure: 'engine_exception', message: m.message });
    }
    this.dispatch();
  }

  /** A worker ended: terminated by us after a timeout (already replaced), or crashed (replace it now). */
  private onExit(slot: Slot): void {
    if (this.slots.indexOf(slot) < 0 || this.closed) return;
    slot.generation = -1; // takes no more jobs
    if (slot.job)
      this.finish(slot.job, { failure: 'engine_exception', message: 'the policy worker exited during the evaluation' });
    slot.job = undefined;
    // NB: a worker that cannot start (a broken build) would otherwise be respawned in a tight loop.
    const replace = () => {
      const at = this.slots.indexOf(slot);
      if (at >= 0 && !this.closed) this.slots[at] = this.spawn();
    };
    if (++this.crashes <= 3) replace();
    else setTimeout(replace, 1000).unref();
  }

  private dispatch(): void {
    while (this.queue.length) {
      const slot = this.slots.find((s) => !s.job && s.generation === this.generation);
      if (!slot) return;
      const job = this.queue.shift()!;
      clearTimeout(job.timer);
      slot.job = job;
      job.timer = setTimeout(() => this.overrun(slot, job), job.budgetMs + this.graceMs);
      this.post(slot, { t: 'eval', id: job.id, key: job.key, input: job.input, limits: job.limits });
    }
  }

  /** The running job overran: replace the worker first, so that the pool never shrinks. */
  private overrun(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    slot.job = undefined;
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots[at] = this.spawn();
    void slot.worker.terminate();
    this.log.warn({ limitMs: job.budgetMs + this.graceMs }, 'policy evaluation overran; worker terminated');
    this.finish(job, {
      failure: 'isolation_timeout',
      message: `no answer within ${job.budgetMs + this.graceMs} ms; the worker was replaced`,
    });
  }

  /** A queued job waits `deadline + grace` for a worker, or up to `loadWaitMs` while no worker has the current plans. */
  private armQueued(job: Job): void {
    job.timer = setTimeout(() => {
      const at = this.queue.indexOf(job);
      if (at < 0) return;
      const waited = performance.now() - job.queuedAt;
      if (!this.slots.some((s) => s.generation === this.generation) && waited < this.loadWaitMs)
        return this.armQueued(job);
      this.queue.splice(at, 1);
      this.finish(job, {
        failure: 'isolation_timeout',
        message: `no policy worker was free within ${Math.round(waited)} ms`,
      });
    }, job.budgetMs + this.graceMs);
  }

  private finish(job: Job, outcome: IsolatedOutcome): void {
    clearTimeout(job.timer);
    job.settle(outcome);
  }
}
