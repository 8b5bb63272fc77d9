/** Runs tasks one at a time, in the order given; a task that fails does not stop the ones after it. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every task given so far has settled. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
