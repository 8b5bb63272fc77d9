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
