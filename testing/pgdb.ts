import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A throw-away PostgreSQL database on the server of `baseUrl` (for tests that run a whole process). */
export async function createTempDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `steward_t_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
