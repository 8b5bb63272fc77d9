/**
 * One lifecycle for every Steward process, in the spirit of controller-runtime's Runnables and runnable groups:
 * the parts a process opens (a Kubernetes client, a source, a store, servers) are registered with how to stop
 * them as they open; they stop in reverse order. An assembly that fails half way stops what it had opened, so
 * that no database, watch or port outlives the error. Leader-only components run while this replica leads.
 */
import type { Logger } from './log.js';
import { listenFailure } from './startup-error.js';

/** Something with a start and a stop: a status writer, a Lease role, a manager. */
export interface Component {
  readonly name: string;
  /** Begins the component's work; resolves once it is started, not when it ends. The signal aborts on stop. */
  start?(signal: AbortSignal): Promise<void> | void;
  stop?(): Promise<unknown> | unknown;
  /** Started only while this replica holds its Lease (`Lifecycle.lead`), stopped when the term ends. */
  leaderOnly?: boolean;
}

/** A port to listen on, and the setting that names it (a bind error names the setting to change). */
export interface ListenAt {
  host: string;
  port: number;
  setting: string;
}

interface Entry {
  name: string;
  stop: () => unknown;
}

export class Lifecycle {
  private readonly entries: Entry[] = [];
  private readonly leaderOnly: Component[] = [];
  private readonly stopping = new AbortController();
  private stopped?: Promise<void>;

  constructor(private readonly log: Logger) {}

  /** Aborted when the lifecycle begins to stop. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Opens a part and registers how to close it: `const store = await life.open('store', openStore, (s) => s.close())`. */
  async open<T>(name: string, open: () => Promise<T> | T, close: (part: T) => unknown): Promise<T> {
    this.refuseWhenStopped(name);
    const part = await open();
    this.entries.push({ name, stop: () => close(part) });
    return part;
  }

  /** Registers the stop of a part made elsewhere (it stops before everything registered earlier). */
  defer(name: string, stop: () => unknown): void {
    this.refuseWhenStopped(name);
    this.entries.push({ name, stop });
  }

  /** Starts a component and registers its stop; a leader-only one waits for `lead`. */
  async start(component: Component): Promise<void> {
    this.refuseWhenStopped(component.name);
    if (component.leaderOnly) {
      this.leaderOnly.push(component);
      return;
    }
    // NB: registered first: a component whose start fails half way still gets its stop.
    this.entries.push({ name: component.name, stop: () => component.stop?.() });
    await component.start?.(this.signal);
  }

  /**
   * Listens on `at` and registers the server's close; a bind error becomes a StartupError naming the setting.
   * The close is registered before listening: a server that failed to bind is closed too.
   */
  async listen<S extends { listen(opts: { host: string; port: number }): Promise<unknown>; close(): unknown }>(
    name: string,
    server: S,
    at: ListenAt,
  ): Promise<S> {
    this.defer(name, () => server.close());
    await server.listen({ host: at.host, port: at.port }).catch((err: unknown) => {
      throw listenFailure(err, at.setting, at.host, at.port);
    });
    return server;
  }

  /**
   * Starts the leader-only components for one term of leadership; they stop, in reverse order, when `term`
   * aborts. The returned promise resolves once they are stopped (at once if none were started).
   */
  async lead(term: AbortSignal): Promise<void> {
    const running: Component[] = [];
    const signal = AbortSignal.any([term, this.signal]);
    for (const c of this.leaderOnly) {
      if (signal.aborted) break;
      running.push(c);
      await c.start?.(signal);
    }
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    await this.stopAll(running.reverse().map((c) => ({ name: c.name, stop: () => c.stop?.() })));
  }

  /** Stops everything, last opened first; a failure is logged and the rest still stop. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping.abort();
      await this.stopAll(this.entries.splice(0).reverse());
    })();
    return this.stopped;
  }

  private async stopAll(entries: readonly Entry[]): Promise<void> {
    for (const e of entries) {
      try {
        await e.stop();
      } catch (err) {
        this.log.warn({ err, component: e.name }, 'stop failed');
      }
    }
  }

  private refuseWhenStopped(name: string): void {
    if (this.stopping.signal.aborted) throw new Error(`the process is stopping: ${name} is not started`);
  }
}

/**
 * Builds a process on a new lifecycle. When `build` throws, what it opened is stopped before the error is
 * rethrown; otherwise the caller owns the lifecycle and stops it on shutdown.
 */
export async function assemble<T>(log: Logger, build: (life: Lifecycle) => Promise<T>): Promise<T> {
  const life = new Lifecycle(log);
  try {
    return await build(life);
  } catch (err) {
    await life.stop();
    throw err;
  }
}
