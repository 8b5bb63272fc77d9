/**
 * The last good version of each Policy (the `policy_last_good` table; docs/adr/0016-policy-last-good-and-wasm.md):
 * what a runtime keeps in force across restarts when a Policy's current version does not compile. Every replica
 * writes the same rows, so a write is an idempotent upsert keyed by namespace/name.
 */
import type { LastGoodStore, LastGoodVersion } from '../policy/last-good.js';
import type { Queryable } from './db.js';

interface Row {
  namespace: string;
  name: string;
  generation: string | number;
  resource_version: string | null;
  uid: string | null;
  hash: string;
  document: unknown;
  bundle: Uint8Array | null;
  stored_at: Date | string;
}

export class LastGoodPolicyRepository implements LastGoodStore {
  constructor(private readonly db: Queryable) {}

  async list(namespace?: string): Promise<LastGoodVersion[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT namespace, name, generation, resource_version, uid, hash, document, bundle, stored_at
       FROM policy_last_good WHERE $1::text IS NULL OR namespace = $1 ORDER BY namespace, name`,
      [namespace ?? null],
    );
    return rows.map((r) => ({
      namespace: r.namespace,
      name: r.name,
      document: typeof r.document === 'string' ? (JSON.parse(r.document) as unknown) : r.document,
      ...(r.bundle ? { bundle: new Uint8Array(r.bundle) } : {}),
      hash: r.hash,
      generation: Number(r.generation),
      ...(r.resource_version !== null ? { resourceVersion: r.resource_version } : {}),
      ...(r.uid !== null ? { uid: r.uid } : {}),
      storedAt: new Date(r.stored_at),
    }));
  }

  /**
   * Stores the version unless the row holds the same hash, or a newer generation of the same object (a replica
   * whose source is ahead of this one's): a lagging replica never puts an older version back.
   */
  async save(v: Omit<LastGoodVersion, 'storedAt'>): Promise<'stored' | 'kept'> {
    const { rows } = await this.db.query(
      `INSERT INTO policy_last_good (namespace, name, generation, resource_version, uid, hash, document, bundle)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (namespace, name) DO UPDATE SET
         generation = EXCLUDED.generation, resource_version = EXCLUDED.resource_version, uid = EXCLUDED.uid,
         hash = EXCLUDED.hash, document = EXCLUDED.document, bundle = EXCLUDED.bundle, stored_at = now()
       WHERE policy_last_good.hash <> EXCLUDED.hash
         AND (EXCLUDED.generation >= policy_last_good.generation
              OR policy_last_good.uid IS DISTINCT FROM EXCLUDED.uid)
       RETURNING name`,
      [
        v.namespace,
        v.name,
        v.generation,
        v.resourceVersion ?? null,
        v.uid ?? null,
        v.hash,
        JSON.stringify(v.document),
        v.bundle ? Buffer.from(v.bundle.buffer, v.bundle.byteOffset, v.bundle.byteLength) : null,
      ],
    );
    return rows.length ? 'stored' : 'kept';
  }

  /** Removes the Policy's row; with `uid`, only when the row is that object's (not a re-created Policy's). */
  async delete(namespace: string, name: string, uid?: string): Promise<void> {
    await this.db.query(
      `DELETE FROM policy_last_good
       WHERE namespace = $1 AND name = $2 AND ($3::text IS NULL OR uid IS NULL OR uid = $3)`,
      [namespace, name, uid ?? null],
    );
  }
}
