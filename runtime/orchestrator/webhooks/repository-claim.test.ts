import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDatabase } from '../../../testing/pgdb.js';
import { openStore, type Store } from '../../store/index.js';
import { WebhookRepository } from './repository.js';

/**
 * Fair claiming: organizations take turns, and the worker's in-flight sends count against the caps. On PGlite and
 * on PostgreSQL (the window functions and the row locks of the claim are the server's).
 */
const PG_BASE = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const BACKENDS: { name: string; open(): Promise<{ store: Store; drop(): Promise<void> }> }[] = [
  { name: 'PGlite', open: async () => ({ store: await openStore({}), drop: async () => undefined }) },
  {
    name: 'PostgreSQL',
    async open() {
      const db = await createTempDatabase(PG_BASE);
      return { store: await openStore({ databaseUrl: db.url }), drop: () => db.drop() };
    },
  },
];

let store: Store;
let repo: WebhookRepository;
let drop: () => Promise<void>;
const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const payload = { event: 'plan.failed', timestamp: T0.toISOString(), data: {} };

/** `hooks` registrations of `org` at `url` (+ `/<n>`), each with one due delivery queued at `when`. */
async function queue(org: string, url: string, hooks: number, when = T0): Promise<void> {
  for (let i = 0; i < hooks; i++)
    await repo.create(org, null, { url: `${url}/${i}`, events: ['plan.failed'], secret: 's', active: true }, when);
  expect(await repo.enqueue({ organizationId: org }, 'plan.failed', payload, `plan-${org}`, when)).toBe(hooks);
}

describe.each(BACKENDS)('claimDue fairness on $name', (backend) => {
  beforeEach(async () => {
    ({ store, drop } = await backend.open());
    repo = new WebhookRepository(store.db);
  });
  afterEach(async () => {
    await store?.close();
    await drop?.();
  });

  it("takes the first due delivery of each organization before the second of any, however old the other's backlog", async () => {
    await queue('org-b', 'https://dead.example/hook', 30);
    await queue('org-a', 'https://a.example/hook', 1, at(5));
    await queue('org-c', 'https://c.example/hook', 2, at(6));
    const first = await repo.claimDue(at(10), 3, 5_000);
    expect(first.map((d) => d.organizationId).sort()).toEqual(['org-a', 'org-b', 'org-c']);
    const second = await repo.claimDue(at(10), 3, 5_000);
    expect(second.map((d) => d.organizationId).sort()).toEqual(['org-b', 'org-b', 'org-c']);
  });

  it("names each delivery's organization and target: the URL origin, lower-cased", async () => {
    await repo.create(
      'org-a',
      null,
      { url: 'HTTPS://Hooks.Example.com:8443/In?x=1', events: ['plan.failed'], secret: 's', active: true },
      T0,
    );
    await repo.enqueue({ organizationId: 'org-a' }, 'plan.failed', payload, 'p', T0);
    expect(await repo.claimDue(at(1), 1, 5_000)).toEqual([
      expect.objectContaining({ organizationId: 'org-a', target: 'https://hooks.example.com:8443' }),
    ]);
  });

  it('leaves an organization at its cap, counting the sends already in flight, and prefers the least busy organization', async () => {
    await queue('org-b', 'https://b.example/hook', 10);
    await queue('org-a', 'https://a.example/hook', 3, at(5));
    const fairness = { perOrganization: 4, perTarget: 8, inFlight: { organizations: { 'org-b': 3 }, targets: {} } };
    // org-b has 3 in flight, org-a none: org-a's three come first although org-b's backlog is older.
    expect((await repo.claimDue(at(10), 3, 5_000, fairness)).map((d) => d.organizationId)).toEqual([
      'org-a',
      'org-a',
      'org-a',
    ]);
    // Then org-b gets one more, its fourth, and no fifth however many slots are free.
    expect((await repo.claimDue(at(10), 8, 5_000, fairness)).map((d) => d.organizationId)).toEqual(['org-b']);
  });

  it("caps one target of an organization without holding back the organization's other targets", async () => {
    await queue('org-b', 'https://dead.example/hook', 10);
    await repo.create(
      'org-b',
      null,
      { url: 'https://live.example/hook', events: ['step.completed'], secret: 's', active: true },
      T0,
    );
    await repo.enqueue({ organizationId: 'org-b' }, 'step.completed', payload, 'plan-live', at(5));
    const claimed = await repo.claimDue(at(10), 8, 5_000, {
      perOrganization: 4,
      perTarget: 2,
      inFlight: { organizations: { 'org-b': 1 }, targets: { 'org-b': { 'https://dead.example': 1 } } },
    });
    expect(claimed.map((d) => d.target).sort()).toEqual(['https://dead.example', 'https://live.example']);
  });

  it('says when to look again without counting deliveries that are due now but held back by the caps', async () => {
    await queue('org-b', 'https://dead.example/hook', 3);
    await repo.claimDue(at(10), 1, 5_000);
    // Two are due now (held back by the caps); the one claimed comes back when its lease ends.
    expect(await repo.nextDueAt()).toEqual(T0);
    expect(await repo.nextDueAt(at(10))).toEqual(at(5_010));
  });
});
