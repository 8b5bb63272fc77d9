import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../api/index.js';
import { licenseYaml, TEST_SIGNING_SECRET } from '../../testing/gateway.js';
import { createTempDatabase } from '../../testing/pgdb.js';
import { freePort, waitForHttp } from '../../testing/ports.js';

/**
 * Issue 15, item 9d: `steward standalone` on PostgreSQL in licensed mode, pre-check + audit pairs driven
 * concurrently, SIGKILL in the middle, restart: every audit the gateway acknowledged (200 with an audit_id) must be
 * in the database. Two kill cycles on the same database; bounded by audit count, not by time.
 */
const BIN = new URL('../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
const BASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const CYCLES = 2;
const WORKERS = 12;
/** Acknowledged audits after which the kill is sent (per cycle), and the most pairs a cycle may send. */
const KILL_AFTER_ACKS = 150;
const MAX_PAIRS_PER_CYCLE = 2000;

async function reachable(url: string): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const unreachable = await reachable(BASE_URL);
if (unreachable)
  console.warn(`reliability sigkill suite skipped: PostgreSQL at ${BASE_URL} is unreachable (${unreachable})`);

(unreachable ? describe.skip : describe)(
  `SIGKILL durability on PostgreSQL (item 9d)${unreachable ? ` — SKIPPED: ${BASE_URL} unreachable` : ''}`,
  () => {
    let db: { url: string; drop(): Promise<void> };
    let dir: string;
    let key: string;
    let child: ChildProcess | undefined;

    beforeAll(async () => {
      db = await createTempDatabase(BASE_URL);
      dir = await mkdtemp(join(tmpdir(), 'steward-sigkill-'));
      key = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2099-12-31T00:00:00Z'), secret: TEST_SIGNING_SECRET });
      await writeFile(join(dir, 'license.yaml'), licenseYaml('acme', 'acme', 'RELIABILITY_LICENSE_KEY'));
    });
    afterAll(async () => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    async function start(): Promise<string> {
      const port = await freePort();
      child = spawn(process.execPath, [BIN, 'standalone'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          STEWARD_GATEWAY_PORT: String(port),
          STEWARD_ORCHESTRATOR_PORT: '0',
          STEWARD_DATA_DIR: join(dir, 'data'),
          STEWARD_MANIFESTS: `config/samples,config/policies,${dir}`,
          STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
          RELIABILITY_LICENSE_KEY: key,
          LOG_LEVEL: 'warn',
          STEWARD_RATE_LIMIT_PER_MINUTE: '1000000',
          STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
        },
        stdio: 'ignore',
      });
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/health`, 60_000);
      return base;
    }

    it('finds every acknowledged audit row after two SIGKILLs under load', { timeout: 170_000 }, async () => {
      const acknowledged: string[] = [];
      const refusedWithoutKey: number[] = [];
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const base = await start();
        const headers = { 'content-type': 'application/json', 'x-license-key': key };
        // Licensed mode: no credentials, no service (checked once per cycle: a restart must not come up open).
        const anonymous = await fetch(`${base}/api/policy/pre-check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: 'k', user_token: 'u', query: 'q' }),
        });
        refusedWithoutKey.push(anonymous.status);
        let ackedThisCycle = 0;
        let sent = 0;
        let killed = false;
        const kill = () => {
          if (killed) return;
          killed = true;
          child!.kill('SIGKILL');
        };
        const worker = async (w: number) => {
          while (!killed && sent < MAX_PAIRS_PER_CYCLE) {
            sent++;
            try {
              const pre = await fetch(`${base}/api/policy/pre-check`, {
                method: 'POST',
                headers,
                body: JSON.stringify({
                  client_id: `app-${w}`,
                  user_token: `u${w}`,
                  query: `What is the weather in city ${sent}?`,
                }),
                signal: AbortSignal.timeout(10_000),
              });
              if (pre.status !== 200) continue;
              const { context_id } = (await pre.json()) as { context_id: string };
              const res = await fetch(`${base}/api/audit/llm-call`, {
                method: 'POST',
                headers,
                body: JSON.stringify({
                  client_id: `app-${w}`,
                  context_id,
                  prompt: `p${sent}`,
                  response: 'r',
                  model: 'm',
                  latency_ms: 1,
                  tokens: { prompt: 1, completion: 1 },
                }),
                signal: AbortSignal.timeout(10_000),
              });
              if (res.status === 200) {
                const body = (await res.json()) as { audit_id?: string };
                if (body.audit_id) {
                  acknowledged.push(body.audit_id);
                  if (++ackedThisCycle >= KILL_AFTER_ACKS) kill();
                }
              }
            } catch {
              if (killed) return; // the process is gone
            }
          }
        };
        await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
        kill();
        await new Promise<void>((resolve) =>
          child!.exitCode !== null || child!.signalCode !== null ? resolve() : child!.once('exit', () => resolve()),
        );
        expect(ackedThisCycle, `cycle ${cycle}: acknowledged audits before the kill`).toBeGreaterThanOrEqual(
          KILL_AFTER_ACKS,
        );
      }
      // Restart once more: the rows must survive the crash and the recovery, and the gateway must serve again.
      const base = await start();
      expect((await fetch(`${base}/health`)).status).toBe(200);
      child!.kill('SIGTERM');

      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ id: string }>('SELECT id FROM audit_entries WHERE id = ANY($1)', [
          acknowledged,
        ]);
        const found = new Set(rows.map((r) => r.id));
        const lost = acknowledged.filter((id) => !found.has(id));
        console.log(`sigkill: ${CYCLES} kills, ${acknowledged.length} acknowledged audits, ${lost.length} lost`);
        expect(lost, `acknowledged audit ids missing from audit_entries (of ${acknowledged.length})`).toEqual([]);
      } finally {
        await client.end();
      }
      expect(
        refusedWithoutKey.every((s) => s === 401 || s === 403),
        `pre-check without credentials answered ${refusedWithoutKey.join(', ')}`,
      ).toBe(true);
    });
  },
);
