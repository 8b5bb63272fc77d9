/**
 * Waits for a condition: retries `check` until it stops throwing (an assertion failing), then returns what it
 * returned; after `timeoutMs` the last error is thrown. Tests wait for conditions with deadlines like this,
 * never for fixed times, so that a busy CI machine only makes them slower.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}

export interface WaitOptions {
  /** @default 60 s */
  timeoutMs?: number;
  /** @default 100 ms */
  everyMs?: number;
  /** What a person would look at when the wait times out (pods, logs): appended to the error. */
  diagnose?: () => string | Promise<string>;
}

/**
 * Polls `check` until it returns a value (not undefined, not false), with a deadline and no fixed sleeps; a check
 * that throws is retried. On timeout the error names `what`, the last error and the diagnosis.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: number | WaitOptions = {},
): Promise<T> {
  const {
    timeoutMs = 60_000,
    everyMs = 100,
    diagnose,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last ? `: ${last instanceof Error ? last.message : String(last)}` : '';
      const seen = diagnose
        ? `\n${await Promise.resolve(diagnose()).catch((err: unknown) => `(diagnosis failed: ${String(err)})`)}`
        : '';
      throw new Error(`timed out waiting for ${what}${why}${seen}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
