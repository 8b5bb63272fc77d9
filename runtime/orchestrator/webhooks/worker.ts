/**
 * The delivery worker: claims due deliveries, sends each with a timeout, records the attempt, and schedules the
 * retry with exponential back-off and jitter until the attempt limit. Rows live in the database, so a worker of a
 * restarted (or another) process picks up what this one left: a lease that outlives the send's timeout returns a
 * row whose worker died mid-send.
 */
import type { Logger } from '../../../platform/log.js';
import type { ClaimedDelivery, WebhookRepository } from './repository.js';
import { postWebhook, TargetRefusedError, type SendOptions, type SendResult } from './send.js';
import { signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';

export interface RetryPolicy {
  /** Attempts in all, the first included; then the delivery is `failed`. @default 10 */
  maxAttempts: number;
  /** Delay before the second attempt; doubles for each further one. @default 2 s */
  baseDelayMs: number;
  /** Longest delay between two attempts. @default 10 min */
  maxDelayMs: number;
}

export interface WorkerOptions extends RetryPolicy, SendOptions {
  repo: WebhookRepository;
  log: Logger;
  /** Longest wait before the worker looks at the table again (rows of other processes, expired leases). @default 1 s */
  pollIntervalMs: number;
  /** Deliveries sent at once. @default 8 */
  concurrency: number;
  now: () => Date;
  /** [0, 1); the jitter's source. @default Math.random */
  random?: () => number;
  /** Told after each attempt is recorded (tests, metrics). */
  onRecorded?: (attempt: RecordedAttempt) => void;
  /** @default postWebhook */
  send?: (url: string, body: string, headers: Record<string, string>, options: SendOptions) => Promise<SendResult>;
}

/** Shortest wait between two rounds that found nothing to send. */
const MIN_WAIT_MS = 10;

export interface RecordedAttempt {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  status: 'delivered' | 'pending' | 'failed';
}

/** The wait after attempt `attempt` (1-based): half the exponential delay plus a random part of the other half. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(full / 2 + random() * (full / 2));
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly send: NonNullable<WorkerOptions['send']>;

  constructor(private readonly options: WorkerOptions) {
    this.send = options.send ?? postWebhook;
  }

  start(): void {
    this.wake();
  }

  /** Looks for due deliveries now (after an emit), or as soon as the current round ends. */
  wake(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.round().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops claiming; sends in flight finish and are recorded first. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async round(): Promise<void> {
    try {
      for (;;) {
        if (this.closed) return;
        const leaseMs = this.options.timeoutMs * 2 + 5_000;
        const batch = await this.options.repo.claimDue(this.options.now(), this.options.concurrency, leaseMs);
        if (!batch.length) break;
        // NB: allSettled: a close() waits for every send of the batch, even when one failed to record.
        const outcomes = await Promise.allSettled(batch.map((d) => this.attempt(d)));
        const failed = outcomes.find((o) => o.status === 'rejected');
        if (failed) throw failed.reason;
      }
      if (!this.closed) await this.schedule();
    } catch (err) {
      this.options.log.error({ err }, 'webhook delivery round failed');
      if (!this.closed) this.arm(this.options.pollIntervalMs);
    }
  }

  private async schedule(): Promise<void> {
    const next = await this.options.repo.nextDueAt();
    const wait = next ? next.getTime() - this.options.now().getTime() : this.options.pollIntervalMs;
    // NB: the floor keeps a row that another transaction holds for a moment (SKIP LOCKED) from spinning the loop.
    this.arm(Math.min(Math.max(MIN_WAIT_MS, wait), this.options.pollIntervalMs));
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const attempt = d.attempts + 1;
    const startedAt = this.options.now();
    const t0 = performance.now();
    const signed = signPayload(d.payload, d.secret, startedAt);
    let responseStatus: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const headers = {
        [SIGNATURE_HEADER]: signed.signature,
        [TIMESTAMP_HEADER]: String(signed.timestamp),
        'x-steward-event': d.event,
        'x-steward-delivery': d.id,
        'user-agent': 'steward-webhooks/1',
      };
      const res = await this.send(d.url, signed.body, headers, this.options);
      responseStatus = res.status;
      if (res.status < 200 || res.status >= 300) error = `the receiver answered ${res.status}`;
    } catch (err) {
      refused = err instanceof TargetRefusedError;
      error = (err as Error).message.slice(0, 500);
    }
    const durationMs = performance.now() - t0;
    const delivered = error === null;
    // NB: a refused target is retried too: DNS may change, and the attempt log shows why each one failed.
    const retryAt = !delivered && attempt < this.options.maxAttempts ? new Date(this.options.now().getTime() + retryDelayMs(attempt, this.options, this.options.random)) : undefined;
    await this.options.repo.recordAttempt(d.id, { attempt, startedAt, durationMs, responseStatus, error }, delivered ? { delivered: true } : { delivered: false, retryAt });
    this.options.onRecorded?.({ deliveryId: d.id, webhookId: d.webhookId, attempt, status: delivered ? 'delivered' : retryAt ? 'pending' : 'failed' });
    const log = { delivery: d.id, webhook: d.webhookId, event: d.event, attempt, status: responseStatus, refused };
    if (delivered) this.options.log.info(log, 'webhook delivered');
    else if (retryAt) this.options.log.warn({ ...log, error, retryAt }, 'webhook attempt failed; will retry');
    else this.options.log.error({ ...log, error }, 'webhook delivery failed for good');
  }
}
