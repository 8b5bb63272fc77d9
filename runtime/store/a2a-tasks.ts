/**
 * A2A tasks (migration 12, runtime/a2a), stored like plans: one row per task, holding the task in A2A's wire JSON
 * beside the columns it is found and listed by. A task is private to its scope — the organization, tenant, owner
 * (the client that created it) and agent card — and no read or write ever crosses scopes.
 */
import type { Queryable } from './db.js';
import { decodePageToken, encodePageToken } from './page-token.js';

/** Whose tasks: the caller's verified identity and the card it called. */
export interface A2aTaskScope {
  organizationId: string;
  /** null: organization-wide. */
  tenantId: string | null;
  /** The client id of the caller who created the task. */
  owner: string;
  /** `orchestrator` or an AgentConfig name. */
  agent: string;
}

export interface StoredA2aTask {
  id: string;
  contextId: string;
  /** The task status's state, e.g. `TASK_STATE_WORKING`. */
  state: string;
  /** The task in A2A's wire JSON. */
  task: Record<string, unknown>;
  /** The task status's timestamp. */
  statusAt: Date;
}

export interface A2aTaskPage {
  tasks: StoredA2aTask[];
  /** Empty when there is no further page. */
  nextPageToken: string;
  /** How many tasks match the filter, on every page. */
  totalSize: number;
}

export interface A2aTaskFilter {
  contextId?: string;
  state?: string;
  /** Only tasks whose status changed after this instant. */
  statusAfter?: Date;
  /** 1..100, validated by the caller. */
  pageSize: number;
  /** `nextPageToken` of the previous page. */
  pageToken?: string;
}

interface Row {
  id: string;
  context_id: string;
  state: string;
  task: Record<string, unknown>;
  status_at: Date | string;
}

const toTask = (r: Row): StoredA2aTask => ({
  id: r.id,
  contextId: r.context_id,
  state: r.state,
  task: r.task,
  statusAt: new Date(r.status_at),
});

const scopeParams = (s: A2aTaskScope) => [s.organizationId, s.tenantId, s.owner, s.agent];

// $1..$4 are the scope, in the order of scopeParams; NB: a NULL tenant only matches NULL (organization-wide tasks).
const IN_SCOPE = 'organization_id = $1 AND tenant_id IS NOT DISTINCT FROM $2 AND owner = $3 AND agent = $4';

// $5..$7 are the filter; an absent one (NULL) matches every row.
const FILTERED = `${IN_SCOPE}
  AND ($5::text IS NULL OR context_id = $5) AND ($6::text IS NULL OR state = $6)
  AND ($7::timestamptz IS NULL OR status_at > $7)`;

interface Cursor {
  statusAt: Date;
  id: string;
}

/** NB: exact to the millisecond, as status_at is: every timestamp stored comes from a JS Date. */
function encodeCursor(c: Cursor): string {
  return encodePageToken({ at: c.statusAt.toISOString(), id: c.id });
}

function decodeCursor(token: string): Cursor {
  const { at, id } = decodePageToken(token, (t) => new Date(t).toISOString() === t);
  return { statusAt: new Date(at), id };
}

export class A2aTaskRepository {
  constructor(private readonly db: Queryable) {}

  /** Creates or replaces the task; throws, writing nothing, when its id is taken by a task of another scope. */
  async save(scope: A2aTaskScope, task: StoredA2aTask): Promise<void> {
    const { rows } = await this.db.query(
      `INSERT INTO a2a_tasks (organization_id, tenant_id, owner, agent, id, context_id, state, task, status_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET
         context_id = EXCLUDED.context_id, state = EXCLUDED.state, task = EXCLUDED.task, status_at = EXCLUDED.status_at
       WHERE a2a_tasks.organization_id = EXCLUDED.organization_id
         AND a2a_tasks.tenant_id IS NOT DISTINCT FROM EXCLUDED.tenant_id
         AND a2a_tasks.owner = EXCLUDED.owner AND a2a_tasks.agent = EXCLUDED.agent
       RETURNING id`,
      [...scopeParams(scope), task.id, task.contextId, task.state, JSON.stringify(task.task), task.statusAt],
    );
    // NB: the conflict's WHERE skips the row of another scope, so nothing is returned; ids are server-made UUIDs,
    // so this is a bug or a forged id, never a case to recover from.
    if (rows.length === 0) throw new Error(`a2a task ${task.id} belongs to another scope`);
  }

  /** The task, when it exists in the scope; undefined otherwise (another scope's task included). */
  async load(scope: A2aTaskScope, id: string): Promise<StoredA2aTask | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT id, context_id, state, task, status_at FROM a2a_tasks WHERE ${IN_SCOPE} AND id = $5`,
      [...scopeParams(scope), id],
    );
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  /** The scope's tasks matching the filter, newest status first, one page at a time (keyset pagination). */
  async list(scope: A2aTaskScope, filter: A2aTaskFilter): Promise<A2aTaskPage> {
    const after = filter.pageToken ? decodeCursor(filter.pageToken) : undefined;
    const params = [...scopeParams(scope), filter.contextId ?? null, filter.state ?? null, filter.statusAfter ?? null];
    const [page, count] = await Promise.all([
      this.db.query<Row>(
        `SELECT id, context_id, state, task, status_at FROM a2a_tasks
         WHERE ${FILTERED} AND ($8::timestamptz IS NULL OR (status_at, id) < ($8::timestamptz, $9::text))
         ORDER BY status_at DESC, id DESC LIMIT $10`,
        // One row more than the page tells whether another page follows.
        [...params, after?.statusAt ?? null, after?.id ?? null, filter.pageSize + 1],
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM a2a_tasks WHERE ${FILTERED}`, params),
    ]);
    const tasks = page.rows.slice(0, filter.pageSize).map(toTask);
    const last = tasks.at(-1);
    return {
      tasks,
      nextPageToken: page.rows.length > filter.pageSize && last ? encodeCursor(last) : '',
      totalSize: Number(count.rows[0]?.n ?? 0),
    };
  }
}
