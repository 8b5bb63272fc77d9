/**
 * CPU and memory figures of this process, for AgentStats. A pool agent is one process per pod, so the
 * process's figures are the agent's; in standalone every in-process agent reports the shared process's.
 */
export class ProcessSampler {
  private lastCpu = process.cpuUsage();
  private lastAt = performance.now();
  private percent = 0;

  constructor(
    /** A shorter interval than this returns the previous figure: a few ms of wall time give noise. @default 250 */
    private readonly minIntervalMs = 250,
  ) {}

  /** CPU time (user + system) over wall time since the previous sample, in percent of one core, 0.1 precision. */
  cpuPercent(): number {
    const now = performance.now();
    const wallMs = now - this.lastAt;
    if (wallMs < this.minIntervalMs) return this.percent;
    const used = process.cpuUsage(this.lastCpu);
    this.percent = Math.round(((used.user + used.system) / 1000 / wallMs) * 1000) / 10;
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    return this.percent;
  }

  /** Resident set size in MiB, 0.1 precision. */
  memoryMb(): number {
    return Math.round((process.memoryUsage.rss() / (1024 * 1024)) * 10) / 10;
  }
}
