/**
 * The worker thread of an embedded database (database.ts): one PGlite in memory, seeded as its owner, then locked
 * down to a role that may only read, in a session whose transactions are read-only. It has a thread of its own
 * because PGlite runs a statement synchronously on the thread that calls it: on the event loop a slow statement
 * would stall every request, and no timer could fire to stop it (PostgreSQL's statement_timeout does not fire
 * inside WebAssembly either). The host terminates this thread when a query overruns.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';
import { lowerThreadPriority } from '../../../platform/worker.js';
import type { FromWorker, QueryMessage, WorkerSetup } from './protocol.js';

/** The role every query runs as: SELECT on the seeded tables, nothing else. */
const READER_ROLE = 'steward_reader';

/**
 * After the seed, as the owner: the seed's open transaction committed and its session settings undone (queries must
 * read text and names as the SQL guard does: standard_conforming_strings, the search path set below); a role that
 * reads every table of every schema the seed made (and creates nothing, not even temporary tables); then a session
 * that is that role and read-only. NB: the session user stays the owner, so `RESET ROLE` or
 * `SET transaction_read_only` would undo the last two; the SQL guard refuses both (only SELECT runs, and
 * `set_config` is on its deny list), so these are the second line, not the first.
 */
const LOCK_DOWN = `
COMMIT;
RESET SESSION AUTHORIZATION;
RESET ALL;
CREATE ROLE ${READER_ROLE} NOLOGIN;
DO $$
DECLARE s name;
BEGIN
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' LOOP
    EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', s);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${READER_ROLE}', s);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO ${READER_ROLE}', s);
  END LOOP;
END $$;
SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY;
SET ROLE ${READER_ROLE};
`;

const setup = workerData as WorkerSetup;
const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

lowerThreadPriority();

/**
 * PGlite grows its WebAssembly memory up to 2 GiB, and a statement such as `string_agg(repeat(…))` would take it
 * there. Every memory this thread makes is capped instead, so PostgreSQL answers `out of memory` for that statement.
 * NB: PGlite has no option for the maximum; this thread is PGlite's alone, so replacing the constructor here
 * touches nothing else, and the start fails if PGlite made no memory through it.
 */
let boundedMemories = 0;
const maxPages = Math.floor(setup.maxMemoryBytes / 65_536);
interface MemoryDescriptor {
  initial: number;
  maximum?: number;
  shared?: boolean;
}
// NB: the project's TypeScript libraries declare WebAssembly's types only, not its constructors.
const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: MemoryDescriptor) => object } }).WebAssembly;
class BoundedMemory extends wasm.Memory {
  constructor(d: MemoryDescriptor) {
    super({ ...d, maximum: Math.max(d.initial, Math.min(d.maximum ?? maxPages, maxPages)) });
    boundedMemories++;
  }
}
Object.defineProperty(wasm, 'Memory', { value: BoundedMemory });

/** Values as node-postgres gives them where PGlite differs: int8 as text (no precision lost), date as text (no time zone). */
const asText = (value: string) => value;

async function start(): Promise<PGlite> {
  const db = new PGlite({
    postgresqlconf: [...setup.settings],
    parsers: { [types.INT8]: asText, [types.DATE]: asText },
  });
  await db.waitReady;
  if (boundedMemories === 0) throw new Error('its memory could not be bounded');
  try {
    await db.exec(setup.seed);
  } catch (e) {
    throw new Error(`spec.seed failed: ${messageOf(e)}`, { cause: e });
  }
  await db.exec(LOCK_DOWN);
  await db.query("SELECT set_config('search_path', quote_ident($1), false)", [setup.searchPath]);
  const { rows } = await db.query<{ role: string; ro: string; scs: string }>(
    "SELECT current_user AS role, current_setting('transaction_read_only') AS ro, current_setting('standard_conforming_strings') AS scs",
  );
  if (rows[0]?.role !== READER_ROLE || rows[0]?.ro !== 'on' || rows[0]?.scs !== 'on')
    throw new Error('the read-only session could not be set up');
  return db;
}

async function answer(db: PGlite, m: QueryMessage): Promise<void> {
  try {
    const res = await db.query<Record<string, unknown>>(m.text, m.params);
    post({ t: 'rows', id: m.id, rows: res.rows, columns: res.fields.map((f) => f.name) });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    post({ t: 'error', id: m.id, message: messageOf(e), ...(typeof code === 'string' ? { code } : {}) });
  }
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

start().then(
  (db) => {
    port.on('message', (m: QueryMessage) => void answer(db, m));
    post({ t: 'ready' });
  },
  (e: unknown) => post({ t: 'failed', message: messageOf(e) }),
);
