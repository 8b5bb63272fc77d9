import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../../testing/eventually.js';
import { createLogger } from '../../../platform/log.js';
import { openStore, type Store } from '../../store/index.js';
import { WebhookRepository } from './repository.js';
import type { SendResult } from './send.js';
import { DeliveryWorker, type RecordedAttempt, type WorkerOptions } from './worker.js';

/**
 * The worker's fairness and its circuit breaker, with an injected clock and a fake sender whose receivers answer,
 * hang until the test times them out, or are dead: no real time passes for a timeout or a cool-down. Waits are for
 * conditions, with deadlines.
 */
const T0 = Date.parse('2026-01-01T00:00:00Z');
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const payload = (event: string) => ({ event, timestamp: new Date(T0).toISOString(), data: {} });

type Behaviour = number | 'hang';

/** Receivers by host: an HTTP status, or `hang` (the send waits until the test answers it or times it out). */
class FakeReceivers {
  readonly calls: { host: string; delivery: string }[] = [];
  readonly behaviour = new Map<string, Behaviour>();
  private hung: { host: string; resolve(r: SendResult): void; reject(e: Error): void }[] = [];

  readonly send = (url: string, _body: string, headers: Record<string, string>): Promise<SendResult> => {
    const host = new URL(url).host;
    this.calls.push({ host, delivery: headers['x-steward-delivery']! });
    const b = this.behaviour.get(host) ?? 200;
    if (b === 'hang') return new Promise((resolve, reject) => this.hung.push({ host, resolve, reject }));
    return Promise.resolve({ status: b });
  };

  sent(host: string): number {
    return this.calls.filter((c) => c.host === host).length;
  }

  hanging(host?: string): number {
    return this.hung.filter((h) => host === undefined || h.host === host).length;
  }

  /** Ends the oldest hung send to `host` the way the per-attempt timeout does. */
  timeOut(host: string): void {
    this.take(host).reject(new Error('no answer within 10000 ms'));
  }

  answer(host: string, status: number): void {
    this.take(host).resolve({ status });
  }

  releaseAll(): void {
    for (const h of this.hung.splice(0)) h.reject(new Error('test over'));
  }

  private take(host: string) {
    const i = this.hung.findIndex((h) => h.host === host);
    if (i < 0) throw new Error(`no send to ${host} is hanging`);
    return this.hung.splice(i, 1)[0]!;
  }
}

interface Harness {
  repo: WebhookRepository;
  worker: DeliveryWorker;
  receivers: FakeReceivers;
  recorded: RecordedAttempt[];
  /** Moves the injected clock to T0 + ms. */
  setClock(ms: number): void;
  /** `hooks` registrations of `org` at `https://<host>/<n>`, each with one delivery queued now; their ids. */
  queue(org: string, host: string, hooks: number, event?: string): Promise<string[]>;
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const LIMITS = {
  concurrency: 8,
  perOrganizationConcurrency: 4,
  perTargetConcurrency: 2,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 60_000,
  maxAttempts: 10,
  baseDelayMs: 2_000,
  maxDelayMs: 600_000,
  timeoutMs: 10_000,
};

async function harness(limits: Partial<WorkerOptions> = {}): Promise<Harness> {
  const store: Store = await openStore({});
  const repo = new WebhookRepository(store.db);
  const receivers = new FakeReceivers();
  const recorded: RecordedAttempt[] = [];
  let clock = T0;
  const worker = new DeliveryWorker({
    ...LIMITS,
    ...limits,
    repo,
    log,
    allowPrivate: false,
    pollIntervalMs: 20,
    now: () => new Date(clock),
    random: () => 0,
    send: receivers.send,
    onRecorded: (a) => recorded.push(a),
  });
  cleanup.push(async () => {
    receivers.releaseAll();
    await worker.close();
    await store.close();
  });
  let plans = 0;
  return {
    repo,
    worker,
    receivers,
    recorded,
    setClock: (ms) => (clock = T0 + ms),
    async queue(org, host, hooks, event = 'plan.failed') {
      const ids: string[] = [];
      for (let i = 0; i < hooks; i++)
        ids.push(
          (
            await repo.create(
              org,
              null,
              { url: `https://${host}/${i}`, events: [event as 'plan.failed'], secret: 's', active: true },
              new Date(clock),
            )
          ).id,
        );
      await repo.enqueue(
        { organizationId: org },
        event as 'plan.failed',
        payload(event),
        `plan-${++plans}`,
        new Date(clock),
      );
      return ids;
    },
  };
}

const deliveredTo = (h: Harness, ids: string[]) =>
  h.recorded.filter((a) => ids.includes(a.webhookId) && a.status === 'delivered').length;

describe('DeliveryWorker fairness', () => {
  it("sends another organization's delivery while one organization's 30 receivers hang", async () => {
    const h = await harness();
    h.receivers.behaviour.set('dead.example', 'hang');
    await h.queue('org-b', 'dead.example', 30);
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging('dead.example')).toBeGreaterThan(0), 5_000);

    const a = await h.queue('org-a', 'a.example', 1);
    h.worker.wake();
    await eventually(() => expect(deliveredTo(h, a)).toBe(1), 5_000);
    // Not one of org-b's sends ended: org-a waited for no timeout at all.
    expect(h.receivers.hanging('dead.example')).toBe(h.receivers.sent('dead.example'));
    expect(h.receivers.sent('dead.example')).toBeLessThanOrEqual(LIMITS.perTargetConcurrency);
  });

  it('gives the first slot a timed-out send frees to the organization with nothing in flight', async () => {
    // One organization may fill every slot here: then another waits for one timeout, and no more.
    const h = await harness({ concurrency: 4, perOrganizationConcurrency: 4, perTargetConcurrency: 4 });
    h.receivers.behaviour.set('dead.example', 'hang');
    await h.queue('org-b', 'dead.example', 30);
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging('dead.example')).toBe(4), 5_000);

    const a = await h.queue('org-a', 'a.example', 1);
    h.worker.wake();
    h.receivers.timeOut('dead.example');
    await eventually(() => expect(deliveredTo(h, a)).toBe(1), 5_000);
    // The slot went to org-a, not to org-b's next delivery, though org-b's backlog is older.
    expect(h.receivers.calls.slice(0, 5).map((c) => c.host)).toEqual([
      'dead.example',
      'dead.example',
      'dead.example',
      'dead.example',
      'a.example',
    ]);
  });

  it('keeps one organization to perOrganizationConcurrency sends and one target to perTargetConcurrency', async () => {
    const h = await harness();
    for (const host of ['d1.example', 'd2.example', 'd3.example']) h.receivers.behaviour.set(host, 'hang');
    for (const host of ['d1.example', 'd2.example', 'd3.example']) await h.queue('org-b', host, 5);
    const claims = vi.spyOn(h.repo, 'claimDue');
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging()).toBe(LIMITS.perOrganizationConcurrency), 5_000);
    // Another look at the table, with 11 of org-b's deliveries due, claims none of them.
    const before = claims.mock.calls.length;
    h.worker.wake();
    await eventually(() => expect(claims.mock.calls.length).toBeGreaterThan(before), 5_000);
    await claims.mock.results.at(-1)!.value;
    expect(h.receivers.hanging()).toBe(LIMITS.perOrganizationConcurrency);
    for (const host of ['d1.example', 'd2.example', 'd3.example'])
      expect(h.receivers.hanging(host)).toBeLessThanOrEqual(LIMITS.perTargetConcurrency);
  });

  it('waits in close() for the sends in flight, and records them', async () => {
    const h = await harness();
    h.receivers.behaviour.set('slow.example', 'hang');
    const [id] = await h.queue('org-a', 'slow.example', 1);
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging('slow.example')).toBe(1), 5_000);
    const closed = h.worker.close();
    h.receivers.answer('slow.example', 204);
    await closed;
    expect(h.recorded).toEqual([expect.objectContaining({ webhookId: id, status: 'delivered' })]);
  });
});

describe('DeliveryWorker circuit breaker', () => {
  it('opens after consecutive timeouts, records attempts without sending through the cool-down, then probes once and closes', async () => {
    const h = await harness({ breakerFailureThreshold: 2 });
    h.receivers.behaviour.set('dead.example', 'hang');
    const hooks = await h.queue('org-a', 'dead.example', 5);
    const attemptsOf = async () =>
      (
        await Promise.all(
          hooks.map((id) => h.repo.deliveries({ organizationId: 'org-a', bound: null, narrowed: null }, id, 1)),
        )
      ).map(([d]) => d!);
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging('dead.example')).toBe(2), 5_000);
    h.receivers.timeOut('dead.example');
    h.receivers.timeOut('dead.example');

    // Two timeouts open the breaker: the other three deliveries get an attempt each, without a request.
    await eventually(() => expect(h.recorded).toHaveLength(5), 5_000);
    expect(h.receivers.sent('dead.example')).toBe(2);
    const first = await attemptsOf();
    const skipped = first.filter((d) => /circuit breaker/.test(d.lastError ?? ''));
    expect(skipped).toHaveLength(3);
    for (const d of skipped) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
      // Not before the cool-down ends (the plain retry would be 1 s later).
      expect(d.nextAttemptAt).toEqual(new Date(T0 + 60_000));
    }
    expect(first.filter((d) => d.lastError === 'no answer within 10000 ms').map((d) => d.nextAttemptAt)).toEqual([
      new Date(T0 + 1_000),
      new Date(T0 + 1_000),
    ]);

    // The two timed-out deliveries fall due within the cool-down: recorded again, still without a request.
    h.setClock(1_000);
    h.worker.wake();
    await eventually(() => expect(h.recorded).toHaveLength(7), 5_000);
    expect(h.receivers.sent('dead.example')).toBe(2);

    // After the cool-down: exactly one probe; the others wait for it.
    h.setClock(60_000);
    h.worker.wake();
    await eventually(() => expect(h.recorded).toHaveLength(11), 5_000);
    expect(h.receivers.sent('dead.example')).toBe(3);
    expect(h.receivers.hanging('dead.example')).toBe(1);

    // The probe is answered: the breaker closes and the rest are sent when their retries fall due.
    h.receivers.behaviour.set('dead.example', 200);
    h.receivers.answer('dead.example', 200);
    await eventually(() => expect(deliveredTo(h, hooks)).toBe(1), 5_000);
    h.setClock(80_000);
    h.worker.wake();
    await eventually(() => expect(deliveredTo(h, hooks)).toBe(5), 5_000);
    expect(h.receivers.sent('dead.example')).toBe(7);
  });

  it("does not let one organization's failures open the breaker of another organization's receiver on the same host", async () => {
    const h = await harness({ breakerFailureThreshold: 1, perTargetConcurrency: 1 });
    h.receivers.behaviour.set('shared.example', 'hang');
    await h.queue('org-b', 'shared.example', 1);
    h.worker.start();
    await eventually(() => expect(h.receivers.hanging('shared.example')).toBe(1), 5_000);
    h.receivers.timeOut('shared.example');
    await eventually(() => expect(h.recorded).toHaveLength(1), 5_000);

    h.receivers.behaviour.set('shared.example', 200);
    const a = await h.queue('org-a', 'shared.example', 1);
    h.worker.wake();
    await eventually(() => expect(deliveredTo(h, a)).toBe(1), 5_000);
  });
});
