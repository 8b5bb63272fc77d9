import { ConnectorError } from './errors.js';
import type { EffectiveLimits } from './options.js';
import { redactValue, type RedactionCounts } from '../redact/index.js';
import type { Row, ToolResult } from './types.js';

/** Cuts rows at `maxRows` and at `maxResultBytes` of JSON; the flag says whether anything was cut. */
export function capRows(rows: readonly Row[], limits: EffectiveLimits): { rows: Row[]; truncated: boolean } {
  const out: Row[] = [];
  let bytes = 2;
  for (const row of rows) {
    if (out.length >= limits.maxRows) return { rows: out, truncated: true };
    bytes += Buffer.byteLength(JSON.stringify(row, jsonSafe) ?? '') + 1;
    if (bytes > limits.maxResultBytes) return { rows: out, truncated: true };
    out.push(row);
  }
  return { rows: out, truncated: false };
}

/** bigint is not JSON; drivers return it for int8 / BIGINT in some modes. */
export const jsonSafe = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? value.toString() : value;

/** Redacts rows when asked; returns the counts (or undefined when redaction is off). */
export function redactRows(rows: Row[], redact: boolean): { rows: Row[]; redactions?: RedactionCounts } {
  if (!redact) return { rows };
  const counts: RedactionCounts = {};
  return { rows: rows.map((r) => redactValue(r, counts) as Row), redactions: counts };
}

/** A tool's answer as a call returns it: redacted when the call asks for it, timed from `started`. */
export function toolResult(answer: unknown, started: number, limits: EffectiveLimits): ToolResult {
  if (!limits.redact)
    return { result: answer, execution_time_ms: performance.now() - started, truncated: false, redactions: undefined };
  const counts: RedactionCounts = {};
  const result = redactValue(answer, counts);
  return { result, execution_time_ms: performance.now() - started, truncated: false, redactions: counts };
}

/**
 * Races a call against its deadline. `onTimeout` cancels the work server-side (pg_cancel_backend,
 * KILL QUERY); its own failure is ignored, the caller gets CONNECTOR_TIMEOUT either way.
 */
export async function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  onTimeout?: () => Promise<unknown> | void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void Promise.resolve()
        .then(onTimeout)
        .catch(() => undefined);
      reject(new ConnectorError('CONNECTOR_TIMEOUT', `call exceeded ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    // the losing promise may reject later (a cancelled query); nobody waits for it
    work.catch(() => undefined);
  }
}

/** Exponential back-off with full jitter, for reconnects. */
export class Backoff {
  private failures = 0;
  private nextAt = 0;

  constructor(
    private readonly baseMs = 250,
    private readonly maxMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a new attempt may be made now. */
  ready(): boolean {
    return this.now() >= this.nextAt;
  }

  failed(): void {
    this.failures++;
    const cap = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures, 16));
    this.nextAt = this.now() + Math.random() * cap;
  }

  succeeded(): void {
    this.failures = 0;
    this.nextAt = 0;
  }
}
