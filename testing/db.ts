/**
 * Database back-ends for tests. PGlite always runs; PostgreSQL runs when DATABASE_URL is set (CI sets it).
 * Each PostgreSQL store gets a fresh schema, so test files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPglite, openPostgres, type Db } from '../runtime/store/index.js';

export interface TestBackend {
  name: 'pglite' | 'postgres';
  /** Why the backend is skipped, when it is. */
  skip?: string;
  open(): Promise<Db & { schema?: string }>;
}

export function testBackends(env: Record<string, string | undefined> = process.env): TestBackend[] {
  const url = env.DATABASE_URL;
  return [
    { name: 'pglite', open: () => openPglite() },
    {
      name: 'postgres',
      skip: url ? undefined : 'DATABASE_URL is not set (no Docker engine for testcontainers here)',
      async open() {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        const db = await openPostgres({ url: url!, schema, poolSize: 4 });
        const close = db.close.bind(db);
        return Object.assign(db, {
          schema,
          async close() {
            await close();
            await dropSchema(url!, schema);
          },
        });
      },
    },
  ];
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
