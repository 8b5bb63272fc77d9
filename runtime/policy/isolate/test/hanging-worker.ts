/**
 * The real isolation worker, except that an evaluation of a query starting with HANG never ends: the model of a
 * hostile evaluation that escapes the engine's deadline (the pool must terminate and replace the worker).
 */
import { parentPort } from 'node:worker_threads';
import { handle } from '../handler.js';
import type { ToWorker } from '../protocol.js';

const port = parentPort!;
port.on('message', (m: ToWorker) => {
  if (m.t === 'eval' && String((m.input as { query?: unknown }).query).startsWith('HANG')) for (;;); // spins until terminated
  port.postMessage(handle(m));
});
