/**
 * Where `steward audit` finds the audit log and the public key: the flags, else the settings `npm start` reads
 * (DATABASE_URL, else the embedded database in STEWARD_DATA_DIR), and the installation's public key.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig } from '../../platform/config.js';
import { databaseFailure, embeddedDatabaseFailure } from '../../platform/startup-error.js';
import { AuditVerifier } from '../../runtime/audit/signing.js';
import type { Db } from '../../runtime/store/index.js';
import { base, evidence } from '../config/env-groups.js';
import { STANDALONE_AUDIT_KEY } from '../config/settings.js';

/** A mistake the person running `steward audit` fixes (a flag, a file, a setting): exit code 2. */
export class AuditCliError extends Error {
  override name = 'AuditCliError';
}

/** The settings `steward audit` reads, with the same definitions and defaults as the processes'. */
const auditCliSchema = z.object({
  DATABASE_URL: base.DATABASE_URL,
  STEWARD_DATA_DIR: base.STEWARD_DATA_DIR,
  STEWARD_AUDIT_SIGNING_KEY_FILE: evidence.STEWARD_AUDIT_SIGNING_KEY_FILE,
  /** The SPKI PEM public key `steward audit verify` checks checkpoints with; see `publicKey`. */
  STEWARD_AUDIT_PUBLIC_KEY_FILE: z.string().min(1).optional(),
});

export type AuditCliConfig = Readonly<z.infer<typeof auditCliSchema>>;

export function auditCliConfig(env: Record<string, string | undefined>): AuditCliConfig {
  return parseConfig(auditCliSchema, env);
}

/** The database flags: at most one of them. */
export interface SourceFlags {
  databaseUrl?: string;
  dataDir?: string;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Opens the audit log's database without migrating it (a check never changes the schema). A data folder flag wins
 * over DATABASE_URL. A StartupError (exit 2) names the setting when it cannot be opened.
 */
export async function openAuditDb(config: AuditCliConfig, flags: SourceFlags): Promise<Db> {
  const url = flags.databaseUrl ?? (flags.dataDir === undefined ? config.DATABASE_URL : undefined);
  let db: Db;
  if (url) {
    const { openPostgres } = await import('../../runtime/store/postgres.js');
    db = await openPostgres({ url, poolSize: 2 });
    try {
      await db.ping(5000);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw databaseFailure(err, url);
    }
  } else {
    const dataDir = flags.dataDir ?? config.STEWARD_DATA_DIR;
    const folder = join(dataDir, 'pglite');
    if (!(await exists(join(folder, 'PG_VERSION'))))
      throw new AuditCliError(
        `no embedded database in ${folder}: set STEWARD_DATA_DIR (or --data-dir) to the data folder`,
      );
    // NB: PGlite has no lock between processes: a second process opening the folder of a running one may damage it.
    if (await exists(join(folder, 'postmaster.pid')))
      throw new AuditCliError(
        `the embedded database in ${folder} is open in another process (a running steward standalone) or was not ` +
          'closed: stop it first (a second opener could damage it), then verify',
      );
    const { openPglite } = await import('../../runtime/store/pglite.js');
    try {
      db = await openPglite({ dataDir: folder });
    } catch (err) {
      throw embeddedDatabaseFailure(err, dataDir);
    }
  }
  const { rows } = await db.query<{ t: string | null }>(`SELECT to_regclass('audit_chains')::text AS t`);
  if (rows[0]?.t == null) {
    await db.close();
    throw new AuditCliError(
      'this database has no audit chains (its schema predates migration 9): start Steward on it once to migrate it',
    );
  }
  return db;
}

/** The public key found, or where it was looked for. */
export interface PublicKey {
  verifier?: AuditVerifier;
  /** The file the key was read from. */
  file?: string;
  /** Every file looked at, in order. */
  looked: string[];
}

/**
 * The public key: `--public-key`, else STEWARD_AUDIT_PUBLIC_KEY_FILE (both must exist), else the first that exists of
 * `<STEWARD_AUDIT_SIGNING_KEY_FILE>.pub`, that key file itself (only its public half is used), and standalone's
 * `<data dir>/audit-signing-key.pem.pub` and `.pem`.
 */
export async function publicKey(
  config: AuditCliConfig,
  flags: { publicKey?: string; dataDir?: string },
): Promise<PublicKey> {
  const named = flags.publicKey ?? config.STEWARD_AUDIT_PUBLIC_KEY_FILE;
  if (named !== undefined) return { verifier: await AuditVerifier.fromFile(named), file: named, looked: [named] };
  const standalone = join(flags.dataDir ?? config.STEWARD_DATA_DIR, STANDALONE_AUDIT_KEY);
  const signing = config.STEWARD_AUDIT_SIGNING_KEY_FILE;
  const candidates = [...(signing ? [`${signing}.pub`, signing] : []), `${standalone}.pub`, standalone];
  for (const file of candidates)
    if (await exists(file)) return { verifier: await AuditVerifier.fromFile(file), file, looked: candidates };
  return { looked: candidates };
}
