/**
 * The delivery worker: claims due deliveries, sends each with a timeout, records the attempt, and schedules the
 * retry with exponential back-off and jitter until the attempt limit. Rows live in the database, so a worker of a
 * restarted (or another) process picks up what this one left: a lease that outlives the send's timeout returns a
 * row whose worker died mid-send.
 *
 * Fairness: sends are in flight continuously (a slot that frees is claimed again at once, whatever the others
 * do), organizations take turns in each claim, and caps per organization and per target (an organization's
 * receiver origin) keep one organization's dead receivers from taking every slot. A circuit breaker per target
 * stops sending to a receiver that keeps timing out. So a delivery of one organization waits for another's dead
 * receivers at most one per-attempt timeout, and only when that organization may fill every slot.
 */
import type { Logger } from '../../../platform/log.js';
import { CircuitBreakers } from './breaker.js';
import { InFlight } from './inflight.js';
import type { AttemptRecord, ClaimedDelivery, WebhookRepository } from './repository.js';
import { postWebhook, TargetRefusedError, type SendOptions, type SendResult } from './send.js';
import { signBody, signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';

export interface RetryPolicy {
  /** Attempts in all, the first included; then the delivery is `failed`. @default 10 */
  maxAttempts: number;
  /** Delay before the second attempt; doubles for each further one. @default 2 s */
  baseDelayMs: number;
  /** Longest delay between two attempts. @default 10 min */
  maxDelayMs: number;
}

/** Limits that keep organizations and receivers from holding each other up; per process. */
export interface FairnessLimits {
  /** Deliveries sent at once, all organizations together. @default 8 */
  concurrency: number;
  /** Deliveries of one organization sent at once. @default 4 */
  perOrganizationConcurrency: number;
  /** Deliveries to one target (one organization's receiver origin, `https://host:port`) sent at once. @default 2 */
  perTargetConcurrency: number;
  /** Consecutive timeouts or connection failures of a target that open its circuit breaker. @default 5 */
  breakerFailureThreshold: number;
  /** How long an open breaker holds a target's deliveries (recorded, not sent) before one probe goes. @default 60 s */
  breakerCooldownMs: number;
}

export interface WorkerOptions extends RetryPolicy, FairnessLimits, SendOptions {
  repo: WebhookRepository;
  log: Logger;
  /** Longest wait before the worker looks at the table again (rows of other processes, expired leases). @default 1 s */
  pollIntervalMs: number;
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

/** The error of an attempt the breaker kept from being sent. */
export const BREAKER_OPEN_ERROR =
  'not sent: the circuit breaker of this target is open after consecutive timeouts or connection failures';

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

/** The breaker's key: targets are an organization's own, so another organization cannot open them. */
const breakerKey = (d: ClaimedDelivery) => `${d.organizationId}\n${d.target}`;

export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly send: NonNullable<WorkerOptions['send']>;
  private readonly inFlight = new InFlight();
  private readonly breakers: CircuitBreakers;

  constructor(private readonly options: WorkerOptions) {
    for (const limit of [
      'concurrency',
      'perOrganizationConcurrency',
      'perTargetConcurrency',
      'breakerFailureThreshold',
    ] as const) {
      if (!(options[limit] >= 1)) throw new RangeError(`webhook worker: ${limit} must be at least 1`);
    }
    this.send = options.send ?? postWebhook;
    this.breakers = new CircuitBreakers({
      failureThreshold: options.breakerFailureThreshold,
      cooldownMs: options.breakerCooldownMs,
      probeTimeoutMs: options.timeoutMs,
    });
  }

  start(): void {
    this.wake();
  }

  /** Claims due deliveries now (after an emit, or when a send ends), or as soon as the current claim ends. */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
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
    await this.pumping;
    await this.inFlight.drained();
  }

  /** Fills the free slots; returns when none is free (a send that ends wakes the worker) or nothing more is due. */
  private async pump(): Promise<void> {
    const o = this.options;
    try {
      for (;;) {
        if (this.closed) return;
        const free = o.concurrency - this.inFlight.size;
        if (free <= 0) return;
        const fairness = {
          perOrganization: o.perOrganizationConcurrency,
          perTarget: o.perTargetConcurrency,
          inFlight: this.inFlight.counts(),
        };
        const claimed = await o.repo.claimDue(o.now(), free, o.timeoutMs * 2 + 5_000, fairness);
        // NB: claimed rows are leased: they are sent (and recorded) even when close() came during the claim.
        for (const d of claimed) {
          this.inFlight.run(
            d,
            () => this.attempt(d),
            (err) =>
              o.log.error(
                { err, delivery: d.id, webhook: d.webhookId },
                'webhook attempt could not be recorded; its lease will return it',
              ),
            () => this.wake(),
          );
        }
        if (claimed.length < free) break;
      }
      if (!this.closed) await this.schedule();
    } catch (err) {
      o.log.error({ err }, 'webhook delivery claim failed');
      if (!this.closed) this.arm(o.pollIntervalMs);
    }
  }

  private async schedule(): Promise<void> {
    const now = this.options.now();
    // NB: only later times: rows due now that the caps hold back are claimed when a send ends, not by polling.
    const next = await this.options.repo.nextDueAt(now);
    const wait = next ? next.getTime() - now.getTime() : this.options.pollIntervalMs;
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
    const key = breakerKey(d);
    const admission = this.breakers.admit(key, startedAt);
    if (!admission.send) {
      const skipped = { attempt, startedAt, durationMs: 0, responseStatus: null, error: BREAKER_OPEN_ERROR };
      return this.record(d, skipped, { sent: false, refused: false, notBefore: admission.until });
    }
    const t0 = performance.now();
    const signed =
      d.kind === 'a2a-push'
        ? signBody(JSON.stringify(d.payload.data), d.secret, startedAt)
        : signPayload(d.payload, d.secret, startedAt);
    let responseStatus: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      // NB: the registration's own headers first: Steward's cannot be overridden by them.
      const headers = {
        ...d.headers,
        [SIGNATURE_HEADER]: signed.signature,
        [TIMESTAMP_HEADER]: String(signed.timestamp),
        'x-steward-event': d.event,
        'x-steward-delivery': d.id,
        'user-agent': 'steward-webhooks/1',
      };
      const res = await this.send(d.url, signed.body, headers, this.options);
      responseStatus = res.status;
      if (res.status < 200 || res.status >= 300) error = `the receiver answered ${res.status}`;
      if (this.breakers.answered(key))
        this.options.log.info({ organizationId: d.organizationId, target: d.target }, 'webhook target circuit closed');
    } catch (err) {
      refused = err instanceof TargetRefusedError;
      error = (err as Error).message.slice(0, 500);
      // NB: a refused target (SSRF guard) says nothing of the receiver's health; timeouts and connection failures do.
      if (refused) this.breakers.inconclusive(key);
      else if (this.breakers.failed(key, this.options.now())) {
        this.options.log.warn(
          { organizationId: d.organizationId, target: d.target, cooldownMs: this.options.breakerCooldownMs },
          'webhook target circuit opened',
        );
      }
    }
    await this.record(
      d,
      { attempt, startedAt, durationMs: performance.now() - t0, responseStatus, error },
      { sent: true, refused },
    );
  }

  /**
   * Records an attempt and schedules the retry: after the back-off, and not before `notBefore` (the breaker's
   * cool-down), so that an open breaker never uses up attempts faster than failed sends would.
   */
  private async record(
    d: ClaimedDelivery,
    a: AttemptRecord,
    how: { sent: boolean; refused: boolean; notBefore?: Date },
  ): Promise<void> {
    const o = this.options;
    const delivered = a.error === null;
    // NB: a refused target is retried too: DNS may change, and the attempt log shows why each one failed.
    let retryAt: Date | undefined;
    if (!delivered && a.attempt < o.maxAttempts) {
      const backoff = o.now().getTime() + retryDelayMs(a.attempt, o, o.random);
      retryAt = new Date(Math.max(backoff, how.notBefore?.getTime() ?? 0));
    }
    await o.repo.recordAttempt(d.id, a, delivered ? { delivered: true } : { delivered: false, retryAt });
    o.onRecorded?.({
      deliveryId: d.id,
      webhookId: d.webhookId,
      attempt: a.attempt,
      status: delivered ? 'delivered' : retryAt ? 'pending' : 'failed',
    });
    const log = {
      delivery: d.id,
      webhook: d.webhookId,
      event: d.event,
      attempt: a.attempt,
      status: a.responseStatus,
      refused: how.refused,
      sent: how.sent,
    };
    if (delivered) o.log.info(log, 'webhook delivered');
    else if (retryAt) o.log.warn({ ...log, error: a.error, retryAt }, 'webhook attempt failed; will retry');
    else o.log.error({ ...log, error: a.error }, 'webhook delivery failed for good');
  }
}
