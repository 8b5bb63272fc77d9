/**
 * An isolation worker: holds the same compiled plans as the engine and evaluates the inputs the engine sends
 * it. The engine terminates the worker when an evaluation overruns its deadline plus a grace.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { handle } from './handler.js';
import type { ToWorker } from './protocol.js';

/**
 * The worker thread's nice value. On Linux a thread's nice value is its own, so the event loop serving /health and
 * ordinary pre-checks keeps its CPU share while a large (possibly hostile) evaluation runs here; CFS still gives
 * this thread ~10% of a contended core, and all of an idle one, so large inputs finish within their deadline on
 * a machine that is not saturated.
 */
const WORKER_NICE = 10;

try {
  setPriority(WORKER_NICE);
} catch {
  // NB: not permitted everywhere (some sandboxes); the worker then runs at the process's priority.
}

const port = parentPort!;
port.on('message', (m: ToWorker) => port.postMessage(handle(m)));
