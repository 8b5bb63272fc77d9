/**
 * Database back-ends for tests. PGlite always runs; PostgreSQL runs when DATABASE_URL is set (CI sets it).
 * Each PostgreSQL store gets a fresh schema, so test files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { migrate, openPglite, openPostgres, storeOn, type Db, type Store } from '../runtime/store/index.js';

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

/** What a store suite's tests use: the back-end's connection and the store on it, both set up before the first test. */
export interface StoreSuite {
  db(): Db;
  store(): Store;
}

/**
 * One `describe` per back-end (`${title} on pglite`, `… on postgres`, skipped without DATABASE_URL), each on a
 * migrated database of its own; `clean` runs before each test (emptying the suite's tables).
 */
export function storeSuite(title: string, clean: (db: Db) => Promise<unknown>, body: (s: StoreSuite) => void): void {
  for (const backend of testBackends()) {
    const suite = backend.skip ? describe.skip : describe;
    suite(`${title} on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
      let db: Db | undefined;
      let store: Store | undefined;
      beforeAll(async () => {
        db = await backend.open();
        await migrate(db);
        store = storeOn(db);
      });
      afterAll(async () => {
        await db?.close();
      });
      beforeEach(async () => {
        await clean(db!);
      });
      body({ db: () => db!, store: () => store! });
    });
  }
}
