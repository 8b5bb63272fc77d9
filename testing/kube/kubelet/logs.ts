/**
 * Captured container output: the current and the previous run of each container, with followers
 * (`kubectl logs -f`) that get new output until the container stops.
 */
export interface LogFollower {
  data(text: string): void;
  end(): void;
}

interface ContainerLog {
  current: string;
  previous: string | undefined;
  running: boolean;
  followers: Set<LogFollower>;
}

/** Output kept per container run; older output is dropped first. */
const MAX_CHARS = 4 * 1024 * 1024;

export class LogStore {
  private readonly logs = new Map<string, ContainerLog>();

  private static key(ns: string, pod: string, container: string): string {
    return `${ns}/${pod}/${container}`;
  }

  /** A new run of the container: the last run becomes `previous`. */
  started(ns: string, pod: string, container: string): void {
    const k = LogStore.key(ns, pod, container);
    const old = this.logs.get(k);
    this.logs.set(k, {
      current: '',
      previous: old ? old.current : undefined,
      running: true,
      followers: old?.followers ?? new Set(),
    });
  }

  append(ns: string, pod: string, container: string, text: string): void {
    const l = this.logs.get(LogStore.key(ns, pod, container));
    if (!l) return;
    l.current += text;
    if (l.current.length > MAX_CHARS) l.current = l.current.slice(-MAX_CHARS);
    for (const f of l.followers) f.data(text);
  }

  stopped(ns: string, pod: string, container: string): void {
    const l = this.logs.get(LogStore.key(ns, pod, container));
    if (!l) return;
    l.running = false;
    for (const f of l.followers) f.end();
    l.followers.clear();
  }

  read(
    ns: string,
    pod: string,
    container: string,
    opts: { tailLines?: number; previous?: boolean },
  ): string | undefined {
    const l = this.logs.get(LogStore.key(ns, pod, container));
    if (!l) return undefined;
    const text = opts.previous ? l.previous : l.current;
    if (text === undefined) return undefined;
    return opts.tailLines === undefined ? text : tail(text, opts.tailLines);
  }

  /** Follows the current run; ends at once when the container is not running. Returns an unsubscribe. */
  follow(ns: string, pod: string, container: string, f: LogFollower): () => void {
    const l = this.logs.get(LogStore.key(ns, pod, container));
    if (!l || !l.running) {
      f.end();
      return () => {};
    }
    l.followers.add(f);
    return () => l.followers.delete(f);
  }

  forgetPod(ns: string, pod: string): void {
    const prefix = `${ns}/${pod}/`;
    for (const [k, l] of this.logs) {
      if (!k.startsWith(prefix)) continue;
      for (const f of l.followers) f.end();
      this.logs.delete(k);
    }
  }
}

export function tail(text: string, lines: number): string {
  if (lines <= 0) return '';
  const parts = text.split('\n');
  const trailing = parts[parts.length - 1] === '';
  if (trailing) parts.pop();
  return parts.slice(-lines).join('\n') + (trailing ? '\n' : '');
}
