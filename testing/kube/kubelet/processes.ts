/**
 * Every child process the kubelet starts, each in its own process group so a container's children go
 * with it. A process 'exit' handler SIGKILLs whatever is left, so a crashed or failed test run leaks
 * nothing.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const c of live) killGroup(c, 'SIGKILL');
  });
}

/** Spawns `argv` detached (a new process group) and tracks it until it exits. */
export function spawnTracked(argv: string[], opts: SpawnOptions): ChildProcess {
  hookExit();
  const child = spawn(argv[0]!, argv.slice(1), { ...opts, detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

/** Signals the child's whole process group. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  killGroup(child, signal);
}

/** Pids of tracked processes still running (tests check this is empty after close). */
export function livePids(): number[] {
  return [...live].flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
}
