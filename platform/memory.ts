/**
 * Returns start-up's freed heap pages to the system once a process is ready (docs/benchmarks.md, issue 38).
 *
 * Start-up allocates far more than it keeps (compiling the policy set, building routes and schemas, migrating): the
 * gateway's heap peaks near 125 MB for 50 MB live. V8 gives freed pages back only in a memory-reducing GC, which its
 * memory reducer starts when it sees a low allocation rate; but that rate is estimated at GCs, and an idle process
 * has none, so the estimate stays at start-up's and the reducer keeps waiting ("high alloc"). The pages stay
 * resident for good: measured, `steward gateway` on PostgreSQL sat at 204 MB RSS with 53 MB of live heap. One
 * memory-reducing full GC a moment after the ready line brings it to about 130 MB.
 *
 * NB: V8's `gc` is reached by setting `--expose-gc` at run time and reading `gc` from a new context, so that no
 * command line (image, chart, `npm start`) has to carry the flag; the process's own global gets no `gc`.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options?: {
  type?: 'major' | 'minor';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

let gc: Gc | undefined;

function collector(): Gc | undefined {
  if (gc) return gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
  } catch {
    gc = undefined;
  }
  return gc;
}

/**
 * After `delayMs` (start-up's last garbage is dead by then), one memory-reducing full GC; `cancel()` before it runs
 * (a process stopped at once) skips it. The timer does not keep the process alive.
 */
export function releaseStartupMemory(delayMs = 1000): { cancel(): void } {
  const timer = setTimeout(() => collector()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' }), delayMs);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}
