import { expect, it } from 'vitest';
import { storeSuite } from '../../../testing/db.js';
import type { A2aTaskScope, StoredA2aTask } from '../index.js';

const scope = (over: Partial<A2aTaskScope> = {}): A2aTaskScope => ({
  organizationId: 'org-a',
  tenantId: null,
  owner: 'cli_1',
  agent: 'orchestrator',
  ...over,
});

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** A task whose status changed `second` seconds after T0. */
const task = (id: string, second: number, over: Partial<StoredA2aTask> = {}): StoredA2aTask => {
  const statusAt = new Date(T0 + second * 1000);
  const contextId = over.contextId ?? 'ctx-1';
  const state = over.state ?? 'TASK_STATE_WORKING';
  return {
    id,
    contextId,
    state,
    task: { id, contextId, status: { state, timestamp: statusAt.toISOString() }, history: [], metadata: {} },
    statusAt,
    ...over,
  };
};

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

storeSuite(
  'a2a_tasks',
  async (db) => {
    await db.query('DELETE FROM a2a_tasks');
  },
  (s) => {
    const ids = (tasks: readonly StoredA2aTask[]) => tasks.map((t) => t.id);

    it('loads a saved task as it was saved, its wire JSON included', async () => {
      const saved = task('t1', 0, {
        task: { id: 't1', artifacts: [{ parts: [{ text: 'ünïcode', data: { n: 1.5, ok: true, none: null } }] }] },
      });
      await s.store().a2aTasks.save(scope(), saved);
      expect(await s.store().a2aTasks.load(scope(), 't1')).toEqual(saved);
    });

    it('replaces a task of the same scope on a second save', async () => {
      await s.store().a2aTasks.save(scope({ tenantId: 'ten-1' }), task('t1', 0));
      const done = task('t1', 5, { state: 'TASK_STATE_COMPLETED' });
      await s.store().a2aTasks.save(scope({ tenantId: 'ten-1' }), done);
      expect(await s.store().a2aTasks.load(scope({ tenantId: 'ten-1' }), 't1')).toEqual(done);
      const { rows } = await s.db().query<{ n: number }>('SELECT count(*)::int AS n FROM a2a_tasks');
      expect(rows[0]!.n).toBe(1);
    });

    it.each([
      { name: 'another owner', other: { owner: 'cli_2' } },
      { name: 'another agent', other: { agent: 'travel' } },
      { name: 'a tenant, over an organization-wide task', other: { tenantId: 'ten-1' } },
      { name: 'another organization', other: { organizationId: 'org-b' } },
    ])('refuses a save from $name with the same id, leaving the task as it was', async ({ other }) => {
      const original = task('t1', 0);
      await s.store().a2aTasks.save(scope(), original);
      await expect(
        s.store().a2aTasks.save(scope(other), task('t1', 9, { state: 'TASK_STATE_FAILED' })),
      ).rejects.toThrow('a2a task t1 belongs to another scope');
      expect(await s.store().a2aTasks.load(scope(), 't1')).toEqual(original);
      expect(await s.store().a2aTasks.load(scope(other), 't1')).toBeUndefined();
    });

    it('refuses an organization-wide save over a tenant task', async () => {
      await s.store().a2aTasks.save(scope({ tenantId: 'ten-1' }), task('t1', 0));
      await expect(s.store().a2aTasks.save(scope(), task('t1', 1))).rejects.toThrow(Error);
      expect((await s.store().a2aTasks.load(scope({ tenantId: 'ten-1' }), 't1'))?.statusAt).toEqual(new Date(T0));
    });

    it.each([
      { name: 'another owner', other: { owner: 'cli_2' } },
      { name: 'another agent', other: { agent: 'travel' } },
      { name: 'another tenant', other: { tenantId: 'ten-2' } },
      { name: 'the organization without the tenant', other: { tenantId: null } },
      { name: 'another organization', other: { organizationId: 'org-b' } },
    ])('finds nothing when $name loads or lists a task', async ({ other }) => {
      await s.store().a2aTasks.save(scope({ tenantId: 'ten-1' }), task('t1', 0));
      const theirs = scope({ tenantId: 'ten-1', ...other });
      expect(await s.store().a2aTasks.load(theirs, 't1')).toBeUndefined();
      expect(await s.store().a2aTasks.list(theirs, { pageSize: 10 })).toEqual({
        tasks: [],
        nextPageToken: '',
        totalSize: 0,
      });
    });

    it('lists newest status first, ties broken by id', async () => {
      await s.store().a2aTasks.save(scope(), task('a', 1));
      await s.store().a2aTasks.save(scope(), task('c', 3));
      await s.store().a2aTasks.save(scope(), task('b', 3));
      await s.store().a2aTasks.save(scope(), task('d', 2));
      const page = await s.store().a2aTasks.list(scope(), { pageSize: 10 });
      expect(ids(page.tasks)).toEqual(['c', 'b', 'd', 'a']);
      expect(page).toMatchObject({ nextPageToken: '', totalSize: 4 });
    });

    it.each([
      { name: 'context', filter: { contextId: 'ctx-2' }, want: ['t4', 't2'] },
      { name: 'state', filter: { state: 'TASK_STATE_COMPLETED' }, want: ['t3', 't2'] },
      { name: 'status after an instant (exclusive)', filter: { statusAfter: new Date(T0 + 2000) }, want: ['t4', 't3'] },
      {
        name: 'context and state together',
        filter: { contextId: 'ctx-2', state: 'TASK_STATE_COMPLETED' },
        want: ['t2'],
      },
    ])('filters by $name', async ({ filter, want }) => {
      await s.store().a2aTasks.save(scope(), task('t1', 1));
      await s.store().a2aTasks.save(scope(), task('t2', 2, { contextId: 'ctx-2', state: 'TASK_STATE_COMPLETED' }));
      await s.store().a2aTasks.save(scope(), task('t3', 3, { state: 'TASK_STATE_COMPLETED' }));
      await s.store().a2aTasks.save(scope(), task('t4', 4, { contextId: 'ctx-2' }));
      const page = await s.store().a2aTasks.list(scope(), { pageSize: 10, ...filter });
      expect(ids(page.tasks)).toEqual(want);
      expect(page.totalSize).toBe(want.length);
    });

    it('pages through the filtered tasks, counting them all on every page', async () => {
      for (let i = 1; i <= 7; i++) await s.store().a2aTasks.save(scope(), task(`t${i}`, i));
      // Same instant as t5: the id orders them, and the page boundary falls between the two.
      await s.store().a2aTasks.save(scope(), task('t5b', 5));
      await s.store().a2aTasks.save(scope(), task('other-context', 8, { contextId: 'ctx-2' }));
      const filter = { contextId: 'ctx-1', pageSize: 3 };

      const first = await s.store().a2aTasks.list(scope(), filter);
      expect(ids(first.tasks)).toEqual(['t7', 't6', 't5b']);
      expect(first.totalSize).toBe(8);
      expect(first.nextPageToken).toMatch(/^[A-Za-z0-9_-]+$/);

      const second = await s.store().a2aTasks.list(scope(), { ...filter, pageToken: first.nextPageToken });
      expect(ids(second.tasks)).toEqual(['t5', 't4', 't3']);
      expect(second.totalSize).toBe(8);

      const third = await s.store().a2aTasks.list(scope(), { ...filter, pageToken: second.nextPageToken });
      expect(ids(third.tasks)).toEqual(['t2', 't1']);
      expect(third).toMatchObject({ nextPageToken: '', totalSize: 8 });
    });

    it('ends with an empty token when the last page is exactly full', async () => {
      for (let i = 1; i <= 4; i++) await s.store().a2aTasks.save(scope(), task(`t${i}`, i));
      const first = await s.store().a2aTasks.list(scope(), { pageSize: 2 });
      const second = await s.store().a2aTasks.list(scope(), { pageSize: 2, pageToken: first.nextPageToken });
      expect(ids(second.tasks)).toEqual(['t2', 't1']);
      expect(second.nextPageToken).toBe('');
    });

    it.each([
      { name: 'not base64url', pageToken: 'not a token!' },
      { name: 'not JSON', pageToken: Buffer.from('{[').toString('base64url') },
      { name: 'not a pair', pageToken: token({ statusAt: '2026-01-01T00:00:00.000Z', id: 't1' }) },
      { name: 'not a timestamp', pageToken: token(['yesterday', 't1']) },
      { name: 'a timestamp not in ISO form', pageToken: token(['2026-01-01', 't1']) },
      { name: 'an id that is not text', pageToken: token(['2026-01-01T00:00:00.000Z', 7]) },
    ])('rejects a page token that is $name with a RangeError', async ({ pageToken }) => {
      const listing = s.store().a2aTasks.list(scope(), { pageSize: 10, pageToken });
      await expect(listing).rejects.toBeInstanceOf(RangeError);
      await expect(listing).rejects.toThrow('invalid page token');
    });
  },
);
