/**
 * An isolation worker: holds the same compiled plans as the engine and evaluates the inputs the engine sends
 * it. The engine terminates the worker when an evaluation overruns its deadline plus a grace.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../../../platform/worker.js';
import { handle } from './handler.js';
import type { ToWorker } from './protocol.js';

lowerThreadPriority();

const port = parentPort!;
port.on('message', (m: ToWorker) => port.postMessage(handle(m)));
