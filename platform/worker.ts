import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The entry of a worker thread beside the module that starts it: `./<name>.js` in production (dist/), `./<name>.ts`
 * under tsx (bin/steward.mjs, vitest).
 */
export function workerEntry(name: string, from: string): URL {
  return new URL(from.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, from);
}

/**
 * A worker thread on `entry`. The compiled JS runs as is; a .ts entry means the worker must register tsx before it
 * imports the entry, which `--import` does on Node 24 (Node 20 loaded a worker's entry before those hooks applied).
 */
export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  // NB: tsx by its file URL: a bare `--import tsx` resolves from the working directory, not from this package.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return new Worker(entry, { ...options, execArgv: [...(options.execArgv ?? []), '--import', tsx] });
}

/**
 * The nice value of a worker thread that runs work a caller sent (a large policy input, an embedded database's
 * query). On Linux a thread's nice value is its own, so the event loop serving /health and ordinary requests keeps
 * its CPU share while possibly hostile work runs there; CFS still gives the thread ~10% of a contended core, and
 * all of an idle one, so the work finishes within its deadline on a machine that is not saturated.
 */
const WORKER_NICE = 10;

/** Sets the calling thread's nice value to WORKER_NICE; called first thing in such a worker. */
export function lowerThreadPriority(): void {
  try {
    setPriority(WORKER_NICE);
  } catch {
    // NB: not permitted everywhere (some sandboxes); the worker then runs at the process's priority.
  }
}
