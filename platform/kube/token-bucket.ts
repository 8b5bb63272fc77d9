/** Client-side rate limit of API calls (client-go's QPS and burst): `take` waits for a token, in arrival order. */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.wait(signal));
    // NB: one waiter's abort must not break the chain for the others.
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000)));
    }
  }
}
