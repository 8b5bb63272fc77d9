import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTempDatabase } from '../../../testing/pgdb.js';
import { freePort, waitForHttp } from '../../../testing/ports.js';
import { waitUntil } from '../../../testing/eventually.js';

const BIN = new URL('../../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const BASE_URL = process.env.DATABASE_URL;

(BASE_URL ? describe : describe.skip)(
  `audit durability on PostgreSQL${BASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`,
  () => {
    it('loses no audit entry that was answered 200 when the gateway is killed with SIGKILL under load', async () => {
      const db = await createTempDatabase(BASE_URL!);
      const dataDir = await mkdtemp(join(tmpdir(), 'steward-kill-'));
      const port = await freePort();
      const child = spawn(process.execPath, [BIN, 'standalone'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          STEWARD_GATEWAY_PORT: String(port),
          STEWARD_ORCHESTRATOR_PORT: '0',
          STEWARD_DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          STEWARD_RATE_LIMIT_PER_MINUTE: '1000000',
          STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
        },
        stdio: 'ignore',
      });
      const answered: string[] = [];
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitForHttp(`${base}/health`, 30_000);
        // NB: a context takes one LLM-call audit entry, so each audit gets a pre-check of its own.
        const precheck = async () => {
          const pre = await fetch(`${base}/api/policy/pre-check`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_id: 'app', user_token: 'u1', query: 'What is the weather tomorrow?' }),
          });
          return ((await pre.json()) as { context_id: string }).context_id;
        };
        expect(await precheck()).toBeTruthy();

        let stop = false;
        const worker = async () => {
          while (!stop) {
            try {
              const context_id = await precheck();
              const res = await fetch(`${base}/api/audit/llm-call`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({
                  client_id: 'app',
                  context_id,
                  prompt: 'p',
                  response: 'r',
                  model: 'm',
                  latency_ms: 1,
                  tokens: { prompt: 1, completion: 1 },
                }),
              });
              if (res.status === 200) answered.push(((await res.json()) as { audit_id: string }).audit_id);
            } catch {
              return; // the process is gone
            }
          }
        };
        const workers = Array.from({ length: 16 }, worker);
        // NB: killed under load, once 50 entries were answered, however long that takes on this machine
        await waitUntil('50 answered audit entries', () => answered.length >= 50, { timeoutMs: 90_000, everyMs: 20 });
        child.kill('SIGKILL');
        stop = true;
        await Promise.all(workers);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      try {
        expect(answered.length).toBeGreaterThanOrEqual(50);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        const { rows } = await client.query<{ id: string }>('SELECT id FROM audit_entries WHERE id = ANY($1)', [
          answered,
        ]);
        await client.end();
        expect(rows.length).toBe(answered.length);
      } finally {
        await db.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);
