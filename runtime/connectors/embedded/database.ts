/**
 * An embedded PostgreSQL for the `pglite` connector kind: PGlite in memory, in a worker thread of its own
 * (worker.ts), filled from the Connector's seed and then read-only. It shares nothing with Steward's own store: its
 * own WebAssembly instance, its own memory, no file system of the host. ADR 0013 records why.
 *
 * It starts on the first query, not when the connector loads: a start is PGlite's initdb in memory (seconds of CPU,
 * and hundreds of MB for a moment), which an installation that never queries the sample should not pay. It stops after
 * `idleStopMs` without a query, and when a query overruns: terminating the thread is the only way to stop a
 * statement that PGlite runs, so the next query starts a fresh copy from the seed.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker, workerEntry } from '../../../platform/worker.js';
import { ConnectorError } from '../errors.js';
import { Backoff } from '../limits.js';
import type { Row } from '../types.js';
import type { FromWorker, QueryMessage, WorkerSetup } from './protocol.js';

/**
 * postgresql.conf of the embedded server, sized for a small demo data set: the buffers PostgreSQL would take for a
 * server are WebAssembly memory here, which only grows. `temp_file_limit` bounds what a sort or hash may spill into
 * the in-memory file system; only the owner may change it, and queries run as a role that is not.
 */
const EMBEDDED_SETTINGS: readonly string[] = [
  // NB: what the SQL guard's lexer assumes (a backslash in '...' is an ordinary character), pinned as the postgres kind pins it.
  'standard_conforming_strings = on',
  'shared_buffers = 1MB',
  'work_mem = 1MB',
  'maintenance_work_mem = 1MB',
  'temp_buffers = 1MB',
  'temp_file_limit = 16MB',
];

export interface EmbeddedDatabaseOptions {
  /** The connector's name, for errors. */
  name: string;
  /** SQL run as the owner when the database starts (the Connector's `spec.seed`). */
  seed: string;
  /** The schema of unqualified table names, which the SQL guard assumes too. @default public */
  defaultSchema?: string;
  /** Longest a start (initdb in memory, then the seed) may take before it fails. @default 60 s */
  startTimeoutMs?: number;
  /** The worker stops after this long without a query, and its memory goes back. @default 10 min */
  idleStopMs?: number;
  /** Largest WebAssembly memory of the database; a statement needing more fails with `out of memory`. @default 256 MiB */
  maxMemoryBytes?: number;
  /** JavaScript heap of the worker (rows on their way out), in MiB. @default 128 */
  maxHeapMb?: number;
  /** The worker module (tests) @default ./worker.js beside this module */
  workerEntry?: URL;
}

export interface EmbeddedRows {
  rows: Row[];
  columns: string[];
}

/** One query: its answer, and how to take it back (a queued query leaves the queue, a running one stops the worker). */
export interface EmbeddedCall {
  result: Promise<EmbeddedRows>;
  /**
   * Settles (never rejects) once the database that will run the query has started, or the query has settled: the
   * start is bounded by `startTimeoutMs`, so a caller's own deadline can begin here rather than count initdb.
   */
  started: Promise<void>;
  cancel(): void;
}

interface Job extends QueryMessage {
  resolve(rows: EmbeddedRows): void;
  reject(err: Error): void;
}

interface Session {
  worker: Worker;
  state: 'starting' | 'running';
  /** The one query the worker runs now: they go one at a time, so that a timeout stops only its own query. */
  running?: Job;
  startTimer: NodeJS.Timeout;
}

export class EmbeddedDatabase {
  private session: Session | undefined;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Why the last start failed, until a start succeeds. */
  private lastError: string | undefined;
  /** A seed that fails is not run again on every query. */
  private readonly backoff = new Backoff(1000, 60_000);
  private readonly setup: WorkerSetup;
  /** Calls waiting for a start to finish, one way or the other. */
  private startWaiters: (() => void)[] = [];

  constructor(private readonly opts: EmbeddedDatabaseOptions) {
    this.setup = {
      seed: opts.seed,
      maxMemoryBytes: opts.maxMemoryBytes ?? 256 * 1024 * 1024,
      settings: EMBEDDED_SETTINGS,
      searchPath: opts.defaultSchema ?? 'public',
    };
  }

  /** True while a worker is starting or serving. */
  get started(): boolean {
    return this.session !== undefined;
  }

  /** Queues one statement (starting the database if need be). */
  run(text: string, params: unknown[]): EmbeddedCall {
    let job!: Job;
    const result = new Promise<EmbeddedRows>((resolve, reject) => {
      job = { id: this.nextId++, text, params, resolve, reject };
    });
    if (this.closed) job.reject(this.unavailable('the connector is closed'));
    else {
      this.queue.push(job);
      this.pump();
    }
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    const started =
      this.session?.state === 'running' ? Promise.resolve() : Promise.race([this.startSettled(), settled]);
    return { result, started, cancel: () => this.cancel(job) };
  }

  private startSettled(): Promise<void> {
    return new Promise((resolve) => this.startWaiters.push(resolve));
  }

  private wakeStartWaiters(): void {
    for (const wake of this.startWaiters.splice(0)) wake();
  }

  /**
   * The health check: `SELECT 1` on a started database; a database not started (or busy with a query) is healthy
   * unless its last start failed. NB: a check never starts the database, or loading the connector would.
   */
  async ping(): Promise<void> {
    const s = this.session;
    if (!s) {
      if (this.lastError) throw this.unavailable(this.lastError);
      return;
    }
    if (s.state === 'starting' || s.running) return;
    await this.run('SELECT 1', []).result;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const job of this.queue.splice(0)) job.reject(this.unavailable('the connector is closed'));
    this.wakeStartWaiters();
    const s = this.session;
    if (!s) return;
    s.running?.reject(this.unavailable('the connector is closed'));
    this.stop(s);
    await s.worker.terminate();
  }

  private pump(): void {
    if (this.closed || this.queue.length === 0) return;
    const s = this.session ?? this.spawn();
    if (!s || s.state !== 'running' || s.running) return;
    const job = this.queue.shift()!;
    s.running = job;
    clearTimeout(this.idleTimer);
    s.worker.postMessage({ id: job.id, text: job.text, params: job.params } satisfies QueryMessage);
  }

  private spawn(): Session | undefined {
    if (!this.backoff.ready()) {
      const message = this.lastError ?? 'the embedded database did not start';
      for (const job of this.queue.splice(0)) job.reject(this.unavailable(message));
      return undefined;
    }
    const worker = startWorker(this.opts.workerEntry ?? workerEntry('worker', import.meta.url), {
      workerData: this.setup,
      resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb ?? 128 },
    });
    // NB: the process may exit with a database started; close() is the orderly way out.
    worker.unref();
    const startTimeoutMs = this.opts.startTimeoutMs ?? 60_000;
    const s: Session = {
      worker,
      state: 'starting',
      startTimer: setTimeout(
        () => this.startFailed(s, `no answer within ${startTimeoutMs} ms`),
        startTimeoutMs,
      ).unref(),
    };
    worker.on('message', (m: FromWorker) => this.onMessage(s, m));
    worker.on('error', (err) => this.ended(s, `the embedded database failed: ${err.message}`));
    worker.on('exit', () => this.ended(s, 'the embedded database stopped'));
    this.session = s;
    return s;
  }

  private onMessage(s: Session, m: FromWorker): void {
    if (s !== this.session) return;
    if (m.t === 'ready') {
      clearTimeout(s.startTimer);
      s.state = 'running';
      this.lastError = undefined;
      this.backoff.succeeded();
      this.wakeStartWaiters();
      // NB: every query that waited may have timed out meanwhile; an unused database stops like an idle one
      this.armIdleStop();
    } else if (m.t === 'failed') {
      return this.startFailed(s, m.message);
    } else if (s.running?.id === m.id) {
      const job = s.running;
      s.running = undefined;
      if (m.t === 'rows') job.resolve({ rows: m.rows, columns: m.columns });
      else job.reject(Object.assign(new Error(m.message), { code: m.code }));
      this.armIdleStop();
    }
    this.pump();
  }

  private startFailed(s: Session, message: string): void {
    if (s !== this.session) return;
    this.lastError = `the embedded database did not start: ${message}`;
    this.backoff.failed();
    this.stop(s);
    for (const job of this.queue.splice(0)) job.reject(this.unavailable(this.lastError));
    this.wakeStartWaiters();
  }

  /** The worker ended without us stopping it (a crash, its heap limit): the running query fails, the queue waits for a new one. */
  private ended(s: Session, message: string): void {
    if (s !== this.session) return;
    if (s.state === 'starting') return this.startFailed(s, message);
    s.running?.reject(this.unavailable(message));
    this.stop(s);
    this.pump();
  }

  /** A query's deadline passed: out of the queue, or, running, the worker goes (PGlite cannot stop a statement). */
  private cancel(job: Job): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
    } else if (this.session?.running === job) {
      this.stop(this.session);
      this.pump();
    } else return;
    job.reject(new ConnectorError('CONNECTOR_TIMEOUT', 'the query was cancelled', { connector: this.opts.name }));
  }

  private stop(s: Session): void {
    if (this.session === s) this.session = undefined;
    clearTimeout(s.startTimer);
    void s.worker.terminate();
  }

  private armIdleStop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const s = this.session;
      if (s && !s.running && this.queue.length === 0) this.stop(s);
    }, this.opts.idleStopMs ?? 600_000);
    this.idleTimer.unref();
  }

  private unavailable(message: string): ConnectorError {
    return new ConnectorError('CONNECTOR_UNAVAILABLE', message, { connector: this.opts.name });
  }
}
