/**
 * A start that fails half way closes what it had opened (platform/lifecycle.ts): here Redis does not answer after
 * the manifests are read and the PostgreSQL pool is open, and every connection the process opened to its database
 * must be gone once the start has failed. Needs the local PostgreSQL (DATABASE_URL, as CI sets it).
 */
import { pino } from 'pino';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewaySettings, orchestratorSettings, standaloneSettings } from '../../cmd/config/settings.js';
import { StartupError } from '../../platform/startup-error.js';
import { startGateway } from '../../runtime/gateway/main.js';
import { startOrchestrator } from '../../runtime/orchestrator/main.js';
import { startStandalone } from '../../runtime/standalone/main.js';
import { eventually } from '../../testing/eventually.js';
import { createTempDatabase } from '../../testing/pgdb.js';
import { freePort } from '../../testing/ports.js';

const BASE = process.env.DATABASE_URL;
const log = pino({ level: 'silent' });
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

/** Connections to `database` other than this one. */
async function connectionsTo(database: string): Promise<number> {
  const c = new pg.Client({ connectionString: BASE });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    return r.rows[0]!.n;
  } finally {
    await c.end();
  }
}

/** Tables in `database`: the store's migrations ran, so the store had been opened. */
async function tablesIn(database: string): Promise<number> {
  const url = new URL(BASE!);
  url.pathname = `/${database}`;
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    return r.rows[0]!.n;
  } finally {
    await c.end();
  }
}

/** An environment whose store opens and whose Redis (a port nothing listens on) then fails the start. */
async function failingEnv(): Promise<{ env: Record<string, string>; database: string }> {
  const db = await createTempDatabase(BASE!);
  drops.push(db.drop);
  return {
    database: new URL(db.url).pathname.slice(1),
    env: {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      STEWARD_HOST: '127.0.0.1',
      STEWARD_GATEWAY_PORT: '0',
      STEWARD_ORCHESTRATOR_PORT: '0',
      PORT: '0',
      STEWARD_WATCH_MANIFESTS: 'false',
    },
  };
}

describe.skipIf(!BASE)('a failed assembly closes what it opened', () => {
  it.each([
    { name: 'standalone', start: (env: Record<string, string>) => startStandalone(standaloneSettings(env), log, env) },
    { name: 'gateway', start: (env: Record<string, string>) => startGateway(gatewaySettings(env), log, env) },
    {
      name: 'orchestrator',
      start: (env: Record<string, string>) => startOrchestrator(orchestratorSettings(env), log, env),
    },
  ])('$name: Redis down after the store opened', async ({ start }) => {
    const { env, database } = await failingEnv();
    const err = await start(env).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).setting).toBe('REDIS_URL');
    // The store was open (its migrations ran) and is closed again: no connection of ours is left.
    await eventually(async () => expect(await connectionsTo(database)).toBe(0), 10_000);
    expect(await tablesIn(database)).toBeGreaterThan(0);
  });
});
