/**
 * The server's clock: real time by default; tests can freeze it and move it forward to control
 * creationTimestamps, condition times and the AGE column. Timers (watch timeouts, latency) stay real.
 */
export class TestClock {
  private frozenAt: number | undefined;
  private offsetMs = 0;

  /** Milliseconds since the epoch. */
  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  /** RFC 3339 with second precision, as metav1.Time serializes. */
  nowIso(): string {
    return new Date(Math.floor(this.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }

  /** RFC 3339 with microseconds, as metav1.MicroTime serializes (managedFields use seconds). */
  nowMicroIso(): string {
    return new Date(this.now()).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }

  /** Stops the clock at its current reading (or at `at`). */
  freeze(at?: Date | number): void {
    this.frozenAt = at === undefined ? this.now() : typeof at === 'number' ? at : at.getTime();
  }

  /** Moves the clock forward; works frozen or running. */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError('the clock only moves forward');
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  /** Back to real time (keeping any offset accumulated while running). */
  resume(): void {
    if (this.frozenAt !== undefined) this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }
}
