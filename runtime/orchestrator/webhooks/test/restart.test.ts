import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDatabase } from '../../../../testing/pgdb.js';
import { createLogger } from '../../../../platform/log.js';
import { openStore, type Store } from '../../../store/index.js';
import { WebhookService } from '../service.js';
import { Receiver } from './receiver.js';

/**
 * At-least-once across restarts: a process that stops between two attempts leaves its delivery in the database,
 * and the next process (another connection, another worker) sends it. Against PostgreSQL and PGlite in a folder.
 */
const PG_BASE = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SETTINGS = { allowPrivateTargets: true, baseDelayMs: 20, maxDelayMs: 100, pollIntervalMs: 50, timeoutMs: 2000 };
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

interface Backend {
  name: string;
  /** Opens the same database each time, as a restarted process would. */
  open(): Promise<Store>;
  drop(): Promise<void>;
}

const backends: { name: string; make(): Promise<Backend> }[] = [
  {
    name: 'PostgreSQL',
    async make() {
      const db = await createTempDatabase(PG_BASE);
      return { name: 'PostgreSQL', open: () => openStore({ databaseUrl: db.url }), drop: () => db.drop() };
    },
  },
  {
    name: 'PGlite in a data folder',
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'steward-wh-'));
      return {
        name: 'PGlite',
        open: () => openStore({ dataDir: dir }),
        drop: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
];

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe.each(backends)('webhook delivery across a restart on $name', ({ make }) => {
  it('loses no delivery when the process stops between attempts; the next one sends it, signed', async () => {
    const backend = await make();
    cleanup.push(() => backend.drop());
    const receiver = await new Receiver((n) => (n <= 2 ? 503 : 200)).start();
    cleanup.push(() => receiver.close());

    const first = await backend.open();
    const before = new WebhookService(first.db, SETTINGS, log);
    before.start();
    const hook = await before.repo.create(
      'acme',
      null,
      { url: receiver.url, events: ['plan.failed'], secret: 'restart-secret', active: true },
      new Date(),
    );
    await before.emit('acme', 'plan.failed', { planId: 'plan_r', status: 'failed', totalExecutionTimeMs: 7 });
    await receiver.requests(1);
    // The "process" stops after its first attempt: the worker records it, then the store closes.
    await before.close();
    await first.close();
    expect(receiver.received).toHaveLength(1);

    const second = await backend.open();
    cleanup.push(() => second.close());
    const after = new WebhookService(second.db, SETTINGS, log);
    cleanup.push(() => after.close());
    const delivered = new Promise<void>((resolve) => after.onAttempt((a) => a.status === 'delivered' && resolve()));
    after.start();
    await delivered;

    expect(receiver.received.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(receiver.received.map((r) => r.headers['x-steward-delivery'])).size).toBe(1);
    const last = receiver.received[2]!;
    const signature = last.headers['x-steward-signature'] as string;
    const unsigned = last.body.replace(`,"signature":${JSON.stringify(signature)}}`, '}');
    expect(signature).toBe(
      `sha256=${createHmac('sha256', 'restart-secret').update(`${last.headers['x-steward-timestamp']}.${unsigned}`).digest('hex')}`,
    );
    const [record] = await after.repo.deliveries({ organizationId: 'acme', bound: null, narrowed: null }, hook.id, 10);
    expect(record).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(record!.attemptLog.map((a) => a.responseStatus)).toEqual([503, 503, 200]);
  });
});
