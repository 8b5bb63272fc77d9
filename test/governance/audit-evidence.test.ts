import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditVerifier } from '../../runtime/audit/signing.js';
import { verifyAudit } from '../../runtime/audit/verify.js';
import { waitUntil } from '../../testing/eventually.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { startTestStandalone, type TestStandalone } from '../../testing/standalone.js';

/**
 * The audit log's evidence end to end (issue 36) in one standalone process: it generates its signing key in the
 * data folder on first start, every governed call's row is chained, checkpoints are signed as the settings say, and
 * the chain verifies with the public key alone — until a row is changed.
 */
let sa: TestStandalone;
let fake: FakeOpenAiServer;

beforeAll(async () => {
  fake = await startFakeOpenAi({ apiKey: 'sk-upstream', otherwise: () => ({ kind: 'reply', text: 'Sunny.' }) });
  sa = await startTestStandalone({
    env: (dir) => ({
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: fake.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      STEWARD_AUDIT_CHECKPOINT_ROWS: '10',
      STEWARD_AUDIT_CHECKPOINT_SECONDS: '1',
      STEWARD_AUDIT_WITNESS_FILE: join(dir, 'witness.jsonl'),
    }),
  });
}, 60_000);
afterAll(async () => {
  await sa?.close();
  await fake?.close();
});

describe('the audit evidence of a standalone installation', () => {
  it('generates its signing key in the data folder, private to its user', async () => {
    const key = await stat(join(sa.dir, 'data', 'audit-signing-key.pem'));
    expect(key.mode & 0o777).toBe(0o600);
    await stat(join(sa.dir, 'data', 'audit-signing-key.pem.pub'));
  });

  it('chains every governed call, signs checkpoints, and verifies until a row is changed', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await fetch(`${sa.gateway}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `What is the weather like in city ${i}?` }),
      });
      expect(res.status).toBe(200);
    }
    const db = sa.app.store.db;
    const { rows } = await db.query<{ n: string | number; chained: string | number }>(
      `SELECT count(*) AS n, count(chain_seq) AS chained FROM audit_entries`,
    );
    expect(Number(rows[0]!.chained)).toBe(Number(rows[0]!.n));
    // a checkpoint covers the last row (every second while rows arrive)
    const last = await waitUntil(
      'a checkpoint of the whole chain',
      async () => {
        const { rows: k } = await db.query<{ seq: string | number }>(
          `SELECT max(k.seq) AS seq FROM audit_checkpoints k JOIN audit_chains c USING (organization_id)
           WHERE k.seq = c.seq`,
        );
        return k[0]?.seq ? Number(k[0].seq) : undefined;
      },
      20_000,
    );
    expect(last).toBeGreaterThanOrEqual(25);
    const verifier = await AuditVerifier.fromFile(join(sa.dir, 'data', 'audit-signing-key.pem.pub'));
    const ok = await verifyAudit(db, verifier);
    expect(ok).toMatchObject({ ok: true });
    // the witness outside the database has the same checkpoints
    const witness = await stat(join(sa.dir, 'witness.jsonl'));
    expect(witness.size).toBeGreaterThan(0);

    await db.query(`UPDATE audit_entries SET response = 'Rainy.' WHERE chain_seq = 7`);
    const broken = await verifyAudit(db, verifier);
    expect(broken.ok).toBe(false);
    expect(broken.ok ? undefined : broken.problem).toMatchObject({ seq: 7 });
  });
});
