import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/index.js';
import { WebhookRepository } from './repository.js';

/** The delivery queue's rules, on PGlite: order per plan, leases, inactive registrations. */
let store: Store;
let repo: WebhookRepository;
const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const orgScope = (organizationId: string) => ({ organizationId, bound: null, narrowed: null });
const payload = (event: string) => ({ event, timestamp: T0.toISOString(), data: {} });

beforeAll(async () => {
  store = await openStore({});
  repo = new WebhookRepository(store.db);
});
afterAll(async () => {
  await store?.close();
});

describe('WebhookRepository', () => {
  it("holds a plan's later events back while an earlier one waits for its retry, and says when to look again", async () => {
    const hook = await repo.create(
      'org-a',
      null,
      { url: 'https://h.example/1', events: ['step.completed', 'plan.completed'], secret: 's', active: true },
      T0,
    );
    await repo.enqueue({ organizationId: 'org-a' }, 'step.completed', payload('step.completed'), 'plan-1', T0);
    await repo.enqueue({ organizationId: 'org-a' }, 'plan.completed', payload('plan.completed'), 'plan-1', at(1));
    await repo.enqueue({ organizationId: 'org-a' }, 'plan.completed', payload('plan.completed'), 'plan-2', at(2));
    const first = await repo.claimDue(at(10), 10, 5_000);
    // The head of plan-1 and plan-2's only event; plan-1's second event waits.
    expect(first.map((d) => d.event).sort()).toEqual(['plan.completed', 'step.completed']);
    const step = first.find((d) => d.event === 'step.completed')!;
    const plan2 = first.find((d) => d.event === 'plan.completed')!;
    expect(await repo.claimDue(at(20), 10, 5_000)).toEqual([]);
    // A leased head makes the next look-up the lease's end, not "now".
    expect(await repo.nextDueAt()).toEqual(at(5_010));
    await repo.recordAttempt(
      plan2.id,
      { attempt: 1, startedAt: at(30), durationMs: 1, responseStatus: 200, error: null },
      { delivered: true },
    );
    await repo.recordAttempt(
      step.id,
      { attempt: 1, startedAt: at(30), durationMs: 1, responseStatus: 500, error: 'the receiver answered 500' },
      { delivered: false, retryAt: at(1_000) },
    );
    expect(await repo.nextDueAt()).toEqual(at(1_000));
    expect(await repo.claimDue(at(500), 10, 5_000)).toEqual([]);
    const retry = await repo.claimDue(at(1_000), 10, 5_000);
    expect(retry.map((d) => [d.id, d.attempts])).toEqual([[step.id, 1]]);
    await repo.recordAttempt(
      step.id,
      { attempt: 2, startedAt: at(1_000), durationMs: 1, responseStatus: 200, error: null },
      { delivered: true },
    );
    expect((await repo.claimDue(at(1_001), 10, 5_000)).map((d) => d.event)).toEqual(['plan.completed']);
    const log = await repo.deliveries(orgScope('org-a'), hook.id, 10);
    expect(log.map((d) => d.status).sort()).toEqual(['delivered', 'delivered', 'pending']);
  });

  it('sends nothing for an inactive registration until it is active again', async () => {
    const hook = await repo.create(
      'org-b',
      null,
      { url: 'https://h.example/2', events: ['plan.failed'], secret: 's', active: true },
      T0,
    );
    await repo.enqueue({ organizationId: 'org-b' }, 'plan.failed', payload('plan.failed'), 'plan-9', at(100_000));
    await repo.update(orgScope('org-b'), hook.id, { active: false }, at(100_000));
    const mine = async (now: Date) => (await repo.claimDue(now, 10, 5_000)).filter((d) => d.webhookId === hook.id);
    expect(await mine(at(200_000))).toEqual([]);
    await repo.update(orgScope('org-b'), hook.id, { active: true }, at(200_000));
    expect((await mine(at(300_000))).map((d) => d.webhookId)).toEqual([hook.id]);
  });

  it("queues nothing for another organization's registrations", async () => {
    expect(await repo.enqueue({ organizationId: 'org-c' }, 'plan.failed', payload('plan.failed'), 'plan-x', T0)).toBe(
      0,
    );
  });
});
