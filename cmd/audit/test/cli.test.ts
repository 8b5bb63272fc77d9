/**
 * `steward audit verify|export` as a person runs them: the real CLI in a child process, against a PostgreSQL database
 * of 10,000 rows and a standalone's embedded database, tampered with as someone with SQL access would.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDatabase } from '../../../testing/pgdb.js';
import { pruneAudit } from '../../../runtime/audit/retention.js';
import { AuditSigner } from '../../../runtime/audit/signing.js';
import {
  forgedRow,
  idAt,
  insertRenumbered,
  recordChain,
  testKey,
  type TestKey,
} from '../../../runtime/audit/test/chains.js';
import { migrate, openPglite, openPostgres, storeOn, type Db } from '../../../runtime/store/index.js';
import { STANDALONE_AUDIT_KEY } from '../../config/settings.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/steward.mjs');
/** The CLI starts under tsx: allow for a slow, shared machine. */
const SLOW = 120_000;
const PG_BASE = process.env.DATABASE_URL;

/** Settings of the test run that must not reach the CLI unless a test gives them. */
const CLEAN_ENV = {
  LOG_LEVEL: 'silent',
  DATABASE_URL: '',
  STEWARD_DATA_DIR: '',
  STEWARD_AUDIT_SIGNING_KEY_FILE: '',
  STEWARD_AUDIT_PUBLIC_KEY_FILE: '',
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function steward(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'audit', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...CLEAN_ENV, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const pgSuite = PG_BASE ? describe : describe.skip;
pgSuite('steward audit on PostgreSQL, after 10,000 governed calls', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Db;
  let key: TestKey;
  const org = 'org-acme';
  const flags = () => ['--database-url', url, '--public-key', key.publicKeyFile];

  beforeAll(async () => {
    ({ url, drop } = await createTempDatabase(PG_BASE!));
    db = await openPostgres({ url });
    await migrate(db);
    key = await testKey();
    const store = storeOn(db);
    await recordChain(store, key.signer, 'org-beta', { rows: 12 });
    // A checkpoint every 1,000 rows, and 37 rows after the last one.
    await recordChain(store, key.signer, org, { rows: 10_037, checkpointEvery: 1000, inFlight: 50 });
  }, SLOW);
  afterAll(async () => {
    await db?.close();
    await drop?.();
    await key?.remove();
  });

  it(
    'exits 0 with a summary naming the rows, the checkpoints and the key',
    async () => {
      const r = await steward(['verify', ...flags()]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain(
        `Audit log verified: 2 chains, 10,049 rows unchanged and linked; 11 signed checkpoints verified with key ` +
          `${key.signer.keyId} (${key.publicKeyFile}); 37 rows after the last checkpoints protected by the chain alone.\n`,
      );
      expect(r.stdout).toContain(
        '  org-acme: sequence 1–10037 (10,037 rows), 10 checkpoints (last at 10000, 37 rows after it)\n',
      );
      expect(r.code).toBe(0);
    },
    SLOW,
  );

  it(
    'with no arguments reads DATABASE_URL and the public key beside STEWARD_AUDIT_SIGNING_KEY_FILE',
    async () => {
      const r = await steward(['verify', '--format', 'json'], {
        DATABASE_URL: url,
        STEWARD_AUDIT_SIGNING_KEY_FILE: key.keyFile,
      });
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, signatures: 'verified', chains: [{}, {}] });
      expect(r.code).toBe(0);
    },
    SLOW,
  );

  it(
    'exits 2 when checkpoints exist but no public key is found, and 0 with --no-signatures',
    async () => {
      const empty = await mkdtemp(join(tmpdir(), 'steward-audit-nokey-'));
      try {
        const r = await steward(['verify'], { DATABASE_URL: url, STEWARD_DATA_DIR: empty });
        expect(r.stderr).toContain(
          `steward audit: 11 signed checkpoints could not be checked: no public key (looked for ` +
            `${join(empty, STANDALONE_AUDIT_KEY)}.pub, ${join(empty, STANDALONE_AUDIT_KEY)})`,
        );
        expect(r.code).toBe(2);
        const json = await steward(['verify', '--format', 'json'], { DATABASE_URL: url, STEWARD_DATA_DIR: empty });
        expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, signatures: 'unchecked' });
        expect(json.code).toBe(2);
        const unsigned = await steward(['verify', '--no-signatures'], { DATABASE_URL: url, STEWARD_DATA_DIR: empty });
        expect(unsigned.stdout).toContain('11 checkpoints matched by hash only: their signatures were NOT checked');
        expect(unsigned.code).toBe(0);
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    'exports a chain that verify --file checks offline, and names the row of a tampered line',
    async () => {
      const out = join(key.dir, 'acme.jsonl');
      const r = await steward(['export', '--organization', org, '--out', out, '--database-url', url]);
      expect(r.stderr).toBe(`exported 10037 rows and 10 checkpoints of ${org} to ${out}\n`);
      expect(r.code).toBe(0);
      const offline = await steward(['verify', '--file', out, '--public-key', key.publicKeyFile]);
      expect(offline.stdout).toMatch(/^Audit log verified: 1 chain, 10,037 rows/);
      expect(offline.code).toBe(0);

      const lines = (await readFile(out, 'utf8')).split('\n');
      const i = lines.findIndex((l) => l.includes('"chain_seq":4242,'));
      lines[i] = lines[i]!.replace(/"response":"answer \d+"/, '"response":"a better answer"');
      await writeFile(out, lines.join('\n'));
      const tampered = await steward(['verify', '--file', out, '--public-key', key.publicKeyFile]);
      expect(tampered.stdout).toMatch(/^FAILED chain org-acme, sequence 4242, row aud_\S+: changed row: /);
      expect(tampered.code).toBe(1);
    },
    SLOW,
  );

  it(
    'exits 1 naming a row inserted without a digest',
    async () => {
      await db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, context_id, response)
         VALUES ('aud_slipped_in', $1, 'cli_test', NULL, 'approved')`,
        [org],
      );
      try {
        const r = await steward(['verify', ...flags()]);
        expect(r.stdout).toMatch(/^FAILED chain org-acme, row aud_slipped_in: inserted row: it is outside the chain/);
        expect(r.code).toBe(1);
      } finally {
        await db.query(`DELETE FROM audit_entries WHERE id = 'aud_slipped_in'`);
      }
    },
    SLOW,
  );

  it(
    'exits 1 naming the sequence number of a deleted row',
    async () => {
      await db.exec(
        `CREATE TABLE saved AS SELECT * FROM audit_entries WHERE organization_id = 'org-acme' AND chain_seq = 700`,
      );
      await db.exec(`DELETE FROM audit_entries WHERE organization_id = 'org-acme' AND chain_seq = 700`);
      try {
        const r = await steward(['verify', ...flags()]);
        expect(r.stdout).toMatch(/^FAILED chain org-acme, sequence 700: deleted row: row 700 is missing/);
        expect(r.stdout).toContain('1 of 2 chains broken; 1 verified.\n');
        expect(r.code).toBe(1);
      } finally {
        await db.exec(
          `ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_chain;
           INSERT INTO audit_entries SELECT * FROM saved;
           ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_chain;
           DROP TABLE saved;`,
        );
      }
    },
    SLOW,
  );

  it(
    'exits 1 naming the sequence number and id of an updated row',
    async () => {
      const id = await idAt(db, org, 500);
      await db.query(`UPDATE audit_entries SET response = 'x' WHERE organization_id = $1 AND chain_seq = 500`, [org]);
      try {
        const r = await steward(['verify', ...flags()]);
        expect(r.stdout).toContain(
          `FAILED chain org-acme, sequence 500, row ${id}: changed row: its content differs from the digest written with it\n`,
        );
        expect(r.code).toBe(1);
      } finally {
        await db.query(`UPDATE audit_entries SET response = 'answer ' || (metadata->>'step') WHERE id = $1`, [id]);
      }
      expect((await steward(['verify', ...flags()])).code).toBe(0);
    },
    SLOW,
  );

  it(
    'exits 1 on a row inserted before the last checkpoint with every later link recomputed, naming its segment',
    async () => {
      await insertRenumbered(db, org, 301, forgedRow(org, 'aud_backdated'), true);
      const r = await steward(['verify', ...flags(), '--organization', org]);
      expect(r.stdout).toMatch(
        /^FAILED chain org-acme, sequence 1000: the checkpoint at 1000 does not match the chain: a row after 0 and at or before 1000 was changed, inserted or deleted/,
      );
      expect(r.code).toBe(1);
    },
    SLOW,
  );
});

describe('steward audit on the embedded database of a standalone', () => {
  let dataDir: string;
  let signer: AuditSigner;
  const org = 'org-solo';
  /** Runs `fn` on the standalone's database, closed again before the CLI reads it. */
  const withDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const db = await openPglite({ dataDir: join(dataDir, 'pglite') });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'steward-audit-standalone-'));
    // Where standalone generates its key on first start.
    ({ signer } = await AuditSigner.generateFile(join(dataDir, STANDALONE_AUDIT_KEY)));
    await withDb(async (db) => {
      await migrate(db);
      await recordChain(storeOn(db), signer, org, { rows: 250, checkpointEvery: 100 });
    });
  }, SLOW);
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    "with no arguments verifies STEWARD_DATA_DIR's database with the key standalone generated there",
    async () => {
      const r = await steward(['verify'], { STEWARD_DATA_DIR: dataDir });
      expect(r.stdout).toContain(
        `Audit log verified: 1 chain, 250 rows unchanged and linked; 2 signed checkpoints verified with key ` +
          `${signer.keyId} (${join(dataDir, STANDALONE_AUDIT_KEY)}.pub); 50 rows after the last checkpoints`,
      );
      expect(r.code).toBe(0);
    },
    SLOW,
  );

  it(
    'refuses to open the embedded database while another process has it open',
    async () => {
      const r = await withDb(() => steward(['verify', '--data-dir', dataDir]));
      expect(r.stderr).toMatch(/^steward audit: the embedded database in \S+ is open in another process/);
      expect(r.code).toBe(2);
    },
    SLOW,
  );

  it(
    'exits 1 naming an updated row, and 0 again once it is put back',
    async () => {
      await withDb((db) => db.query(`UPDATE audit_entries SET prompt = 'x' WHERE chain_seq = 150`));
      const r = await steward(['verify', '--data-dir', dataDir]);
      expect(r.stdout).toMatch(/^FAILED chain org-solo, sequence 150, row aud_\S+: changed row/);
      expect(r.code).toBe(1);
      await withDb((db) =>
        db.query(`UPDATE audit_entries SET prompt = 'question ' || (metadata->>'step') WHERE chain_seq = 150`),
      );
      expect((await steward(['verify', '--data-dir', dataDir])).code).toBe(0);
    },
    SLOW,
  );

  it(
    'passes after a retention prune, saying where the chain was cut',
    async () => {
      const result = await withDb((db) => pruneAudit(db, signer, { before: new Date(), now: new Date() }));
      expect(result.chains).toEqual([{ chain: org, prunedThrough: 200, rows: 200 }]);
      const r = await steward(['verify'], { STEWARD_DATA_DIR: dataDir });
      expect(r.stdout).toContain('  org-solo: sequence 201–250 (50 rows), pruned through 200, 1 checkpoint');
      expect(r.code).toBe(0);
    },
    SLOW,
  );

  it(
    'exits 2 on a bad --from, a missing --organization, and two databases',
    async () => {
      const bad = await steward(['export', '--organization', org, '--from', 'last tuesday', '--data-dir', dataDir]);
      expect(bad.stderr).toBe('steward audit: --from last tuesday: not a date or an RFC 3339 time\n');
      expect(bad.code).toBe(2);
      const missing = await steward(['export', '--data-dir', dataDir]);
      expect(missing.stderr).toContain("required option '--organization <id>' not specified");
      expect(missing.code).toBe(2);
      const two = await steward(['verify', '--data-dir', dataDir, '--database-url', 'postgres://x@127.0.0.1/y']);
      expect(two.stderr).toContain('--database-url and --data-dir name two databases');
      expect(two.code).toBe(2);
    },
    SLOW,
  );
});
