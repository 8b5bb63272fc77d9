import type { Logger } from '../../../platform/log.js';
import type { Db } from '../../store/index.js';
import type { WebhookEmitter, WebhookEvent } from './events.js';
import { WebhookRepository } from './repository.js';
import { DeliveryWorker, type FairnessLimits, type RecordedAttempt, type RetryPolicy } from './worker.js';

/** Webhook settings (STEWARD_WEBHOOK_* in cmd/config/env.ts); the fairness limits are documented on FairnessLimits. */
export interface WebhookSettings extends Partial<RetryPolicy>, Partial<FairnessLimits> {
  /** Lets registrations and deliveries reach private, loopback and link-local addresses (tests, labs). @default false */
  allowPrivateTargets?: boolean;
  /** One attempt's timeout, connection to last byte. @default 10 s */
  timeoutMs?: number;
  /** @default 1 s */
  pollIntervalMs?: number;
  /** @default Math.random */
  random?: () => number;
}

export const WEBHOOK_DEFAULTS = {
  maxAttempts: 10,
  baseDelayMs: 2_000,
  maxDelayMs: 600_000,
  timeoutMs: 10_000,
  pollIntervalMs: 1_000,
  concurrency: 8,
  perOrganizationConcurrency: 4,
  perTargetConcurrency: 2,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 60_000,
} as const;

/** The registrations, the emitter the plan surface calls, and the delivery worker of one process. */
export class WebhookService implements WebhookEmitter {
  readonly repo: WebhookRepository;
  readonly allowPrivateTargets: boolean;
  private readonly worker: DeliveryWorker;
  private readonly listeners = new Set<(a: RecordedAttempt) => void>();

  constructor(
    db: Db,
    settings: WebhookSettings,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.repo = new WebhookRepository(db);
    this.allowPrivateTargets = settings.allowPrivateTargets ?? false;
    this.worker = new DeliveryWorker({
      ...WEBHOOK_DEFAULTS,
      ...definedOnly(settings),
      allowPrivate: this.allowPrivateTargets,
      repo: this.repo,
      log,
      now,
      onRecorded: (a) => {
        for (const l of this.listeners) l(a);
      },
    });
  }

  /** Tells `listener` of every attempt once it is recorded; returns the unsubscribe function. */
  onAttempt(listener: (a: RecordedAttempt) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the worker: it picks up deliveries left pending by earlier runs at once. */
  start(): void {
    this.worker.start();
  }

  async emit(
    organizationId: string,
    event: WebhookEvent,
    data: Record<string, unknown>,
    tenantId?: string,
  ): Promise<void> {
    const at = this.now();
    const payload = { event, timestamp: at.toISOString(), data };
    const queued = await this.repo.enqueue(
      { organizationId, tenantId },
      event,
      payload,
      typeof data.planId === 'string' ? data.planId : '',
      at,
    );
    if (queued) {
      this.log.debug({ organizationId, event, queued }, 'webhook deliveries queued');
      this.worker.wake();
    }
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
