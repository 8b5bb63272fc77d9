/**
 * A2A push configs in the store (migration 13), on PostgreSQL and PGlite: each config is a hidden webhook
 * registration of its task's scope; saving the same id replaces it, a task takes a bounded number, removing one drops
 * its pending deliveries, and a task's update becomes one delivery per config, ordered by the task.
 */
import { expect, it } from 'vitest';
import { storeSuite } from '../../../testing/db.js';
import { WebhookRepository } from '../../orchestrator/webhooks/repository.js';
import { PushConfigLimitError, type A2aTaskScope } from '../index.js';

const scope = (over: Partial<A2aTaskScope> = {}): A2aTaskScope => ({
  organizationId: 'org-a',
  tenantId: null,
  owner: 'cli_1',
  agent: 'default/helper',
  ...over,
});
const AT = new Date('2026-01-01T00:00:00.000Z');
const config = (id: string, url = `https://hooks.example/${id}`) => ({
  taskId: 'task-1',
  id,
  url,
  secret: `token-${id}`,
  headers: { 'x-a2a-notification-token': `token-${id}` },
  config: { taskId: 'task-1', id, url },
});

storeSuite(
  'a2a_push_configs',
  async (db) => {
    await db.query(`DELETE FROM webhooks WHERE kind = 'a2a-push' OR organization_id = 'org-a'`);
  },
  (s) => {
    const pending = async () =>
      (
        await s
          .db()
          .query<{ webhook_id: string; order_key: string; event: string }>(
            "SELECT webhook_id, order_key, event FROM webhook_deliveries WHERE organization_id = 'org-a' ORDER BY seq",
          )
      ).rows;

    it("keeps a task's configs in its scope only, and replaces a config saved again under its id", async () => {
      await s.store().a2aPush.save(scope(), config('a'), 10, AT);
      await s.store().a2aPush.save(scope(), config('b'), 10, AT);
      await s
        .store()
        .a2aPush.save(scope(), config('a', 'https://hooks.example/a-moved'), 10, new Date(AT.getTime() + 1000));
      expect((await s.store().a2aPush.load(scope(), 'task-1')).map((c) => c.url)).toEqual([
        'https://hooks.example/b',
        'https://hooks.example/a-moved',
      ]);
      expect(await s.store().a2aPush.load(scope({ owner: 'cli_2' }), 'task-1')).toEqual([]);
      expect(await s.store().a2aPush.load(scope({ tenantId: 'eu' }), 'task-1')).toEqual([]);
      expect(await s.store().a2aPush.load(scope({ agent: 'default/other' }), 'task-1')).toEqual([]);
      // Another scope cannot remove them either.
      await s.store().a2aPush.remove(scope({ owner: 'cli_2' }), 'task-1', 'b');
      expect(await s.store().a2aPush.load(scope(), 'task-1')).toHaveLength(2);
    });

    it('refuses a config over the limit, writing nothing', async () => {
      await s.store().a2aPush.save(scope(), config('a'), 2, AT);
      await s.store().a2aPush.save(scope(), config('b'), 2, AT);
      await expect(s.store().a2aPush.save(scope(), config('c'), 2, AT)).rejects.toBeInstanceOf(PushConfigLimitError);
      expect(await s.store().a2aPush.load(scope(), 'task-1')).toHaveLength(2);
      const hooks = await s
        .db()
        .query<{ n: number }>("SELECT count(*)::int AS n FROM webhooks WHERE kind = 'a2a-push'");
      expect(Number(hooks.rows[0]!.n)).toBe(2);
    });

    it('queues one delivery per config, ordered by the task, and removing a config drops its pending ones', async () => {
      await s.store().a2aPush.save(scope(), config('a'), 10, AT);
      await s.store().a2aPush.save(scope(), config('b'), 10, AT);
      expect(await s.store().a2aPush.enqueue(scope(), 'task-1', { task: { id: 'task-1' } }, AT)).toBe(2);
      expect(await s.store().a2aPush.enqueue(scope({ owner: 'cli_2' }), 'task-1', { task: {} }, AT)).toBe(0);
      const queued = await pending();
      expect(queued).toHaveLength(2);
      expect(queued.every((d) => d.order_key === 'task-1' && d.event === 'a2a.task')).toBe(true);
      await s.store().a2aPush.remove(scope(), 'task-1', 'a');
      expect(await pending()).toHaveLength(1);
      expect((await s.store().a2aPush.load(scope(), 'task-1')).map((c) => c.id)).toEqual(['b']);
    });

    it("hides the configs' registrations from the webhooks API", async () => {
      await s.store().a2aPush.save(scope(), config('a'), 10, AT);
      const hooks = new WebhookRepository(s.db());
      expect(await hooks.list({ organizationId: 'org-a', bound: null, narrowed: null })).toEqual([]);
    });
  },
);
