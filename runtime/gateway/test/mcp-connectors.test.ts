import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../../../testing/gateway.js';
import { PG_URL } from '../../connectors/test/fixtures.js';
import { connectorYaml, eventually, startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

let w: ConnectorWorld;
beforeAll(async () => {
  w = await startConnectorWorld();
});
afterAll(async () => {
  await w?.close();
});

const acme = () => ({ 'x-license-key': w.gw.keys.acme });
const globex = () => ({ 'x-license-key': w.gw.keys.globex });
const query = (payload: Record<string, unknown>, headers = acme()) =>
  w.gw.app.inject({ method: 'POST', url: '/mcp/resources/query', headers, payload });
const tool = (payload: Record<string, unknown>, headers = acme()) =>
  w.gw.app.inject({ method: 'POST', url: '/mcp/tools/execute', headers, payload });
const auditOf = async (org: string, id: string) =>
  (await w.gw.store.audit.get(org, id))?.metadata?.connector_call as Record<string, unknown> | undefined;

/** The newest audit entry of a connector call of `connector` with this decision, for the refusals (no audit_id in an error). */
async function lastAudit(org: string, connector: string, decision: string) {
  const { rows } = await w.gw.store.db.query<{ metadata: { connector_call: Record<string, unknown> } }>(
    `SELECT metadata FROM audit_entries WHERE organization_id = $1 AND metadata->'connector_call'->>'connector' = $2 AND metadata->'connector_call'->>'decision' = $3 ORDER BY created_at DESC LIMIT 1`,
    [org, connector, decision],
  );
  return rows[0]?.metadata.connector_call;
}

describe('GET /mcp/connectors and health', () => {
  it("lists the caller's connectors with their health, and turns healthy after the first check", async () => {
    await eventually(async () => {
      const body = (await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors', headers: acme() })).json();
      expect(body.connectors.map((c: { name: string }) => c.name)).toEqual([
        'api',
        'cache',
        'maria',
        'pg',
        'pg-acme',
        'pg-rw',
        'tools',
      ]);
      expect(body.count).toBe(7);
      for (const c of body.connectors)
        expect(c).toMatchObject({ status: 'healthy', last_health_check: expect.any(String), type: expect.any(String) });
    });
  });

  it('checks one connector on demand and answers 404 JSON for an unknown one', async () => {
    const res = await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors/maria/health', headers: acme() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'maria',
      type: 'mysql',
      healthy: true,
      latency_ms: expect.any(Number),
      last_check: expect.any(String),
    });
    const missing = await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors/nope/health', headers: acme() });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      success: false,
      code: 'CONNECTOR_NOT_FOUND',
      error: expect.stringContaining('nope'),
    });
  });

  it('checks every connector of the organization at GET /mcp/health', async () => {
    const body = (await w.gw.app.inject({ method: 'GET', url: '/mcp/health', headers: acme() })).json();
    expect(body).toMatchObject({
      healthy: true,
      total_connectors: 7,
      healthy_count: 7,
      unhealthy_count: 0,
      timestamp: expect.any(String),
    });
  });
});

describe('POST /mcp/resources/query', () => {
  it('runs a PostgreSQL query with $1 params, audits it and reports the rate limit', async () => {
    const res = await query({
      connector: 'pg',
      query: `SELECT id, customer FROM ${w.id}.orders WHERE total > $1 ORDER BY id`,
      params: [15],
      user_token: 'u-1',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      data: [
        { id: 2, customer: 'alan' },
        { id: 3, customer: 'grace' },
      ],
      row_count: 2,
      execution_time_ms: expect.any(Number),
    });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(await auditOf('acme', body.metadata.audit_id)).toMatchObject({
      via: 'rest',
      connector: 'pg',
      type: 'postgres',
      operation: 'query',
      decision: 'allowed',
      rows: 2,
      statement_hash: body.metadata.statement_hash,
      sql: { operation: 'select', tables: [`${w.id}.orders`] },
    });
    const entry = await w.gw.store.audit.get('acme', body.metadata.audit_id);
    expect(entry).toMatchObject({ userToken: 'u-1', latencyMs: expect.any(Number), prompt: undefined });
  });

  it("accepts the SDKs' `statement` spelling, on MariaDB", async () => {
    const res = await query({
      connector: 'maria',
      statement: `SELECT customer FROM ${w.id}_orders WHERE id = $1`,
      params: [2],
      options: { maxRows: 10 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: [{ customer: 'alan' }], row_count: 1 });
  });

  it('queries the HTTP API by path, the built-in output redaction masking the email in the row', async () => {
    const res = await query({ connector: 'api', query: '/users', params: { name: 'Ada' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([{ id: 1, name: 'Ada', email: '[REDACTED:email]' }]);
    expect(res.json().metadata.redactions).toEqual({ email: 1 });
  });

  it("refuses a redirect off the HTTP API's origin with SSRF_REFUSED", async () => {
    const res = await query({ connector: 'api', query: '/redirect-out' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'SSRF_REFUSED', error: expect.any(String) });
  });

  it("answers the database's own error as 502 CONNECTOR_QUERY_FAILED and audits the failure", async () => {
    const res = await query({ connector: 'maria', query: `SELECT nope FROM ${w.id}_orders` });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ success: false, code: 'CONNECTOR_QUERY_FAILED', error: expect.any(String) });
    expect(await lastAudit('acme', 'maria', 'failed')).toMatchObject({
      error_code: 'CONNECTOR_QUERY_FAILED',
      sql: { operation: 'select' },
    });
  });

  it('answers 400 JSON when neither query nor statement is sent', async () => {
    const res = await query({ connector: 'pg' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'INVALID_REQUEST',
      error: expect.stringContaining('query'),
    });
  });

  it("refuses a stacked statement with the SQL guard's code, runs nothing and audits the refusal", async () => {
    const res = await query({ connector: 'pg-rw', query: `SELECT 1; DROP TABLE ${w.id}.orders` });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'SQL_REFUSED',
      details: { reason: 'STACKED_QUERIES' },
      error: expect.any(String),
    });
    expect((await w.pgClient.query(`SELECT count(*)::int AS n FROM ${w.id}.orders`)).rows[0].n).toBe(3);
    expect(await lastAudit('acme', 'pg-rw', 'refused')).toMatchObject({
      error_code: 'SQL_REFUSED',
      reason: 'STACKED_QUERIES',
    });
  });

  it('blocks with POLICY_VIOLATION naming the policy, from the parsed tables, and never runs the call', async () => {
    const read = await query({ connector: 'pg', query: `SELECT email FROM ${w.id}.customers` });
    expect(read.statusCode).toBe(403);
    expect(read.json()).toMatchObject({
      code: 'POLICY_VIOLATION',
      error: expect.stringContaining('no-customer-reads'),
    });
    const insert = await query({
      connector: 'pg-rw',
      query: `INSERT INTO ${w.id}.orders VALUES ($1, 'eve', 1)`,
      params: [99],
    });
    expect(insert.statusCode).toBe(403);
    expect(insert.json()).toMatchObject({ code: 'POLICY_VIOLATION', error: expect.stringContaining('no-inserts') });
    expect((await w.pgClient.query(`SELECT count(*)::int AS n FROM ${w.id}.orders WHERE id = 99`)).rows[0].n).toBe(0);
    expect(await lastAudit('acme', 'pg-rw', 'blocked')).toMatchObject({
      policies: ['no-inserts'],
      sql: { operation: 'insert' },
    });
  });

  it('blocks a statement the built-in pack refuses (a card number in the statement)', async () => {
    const res = await query({ connector: 'pg', query: "SELECT '4111-1111-1111-1111' AS card" });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'POLICY_VIOLATION', error: expect.stringContaining('pii') });
  });
});

describe('POST /mcp/tools/execute', () => {
  it('runs a remote MCP tool and a Redis command', async () => {
    const add = await tool({ connector: 'tools', tool: 'add', params: { a: 2, b: 40 } });
    expect(add.statusCode).toBe(200);
    expect(add.json()).toMatchObject({
      success: true,
      result: { content: [{ type: 'text', text: '42' }] },
      metadata: { connector: 'tools', operation: 'add' },
    });
    const get = await tool({ connector: 'cache', tool: 'get', params: { key: 'greeting' } });
    expect(get.json()).toMatchObject({ success: true, metadata: { type: 'redis' } });
    expect(JSON.stringify(get.json().result)).toContain('hello');
  });

  it.each([
    [
      'a US SSN in a tool argument',
      { connector: 'tools', tool: 'whois', params: { name: 'jane', note: 'her SSN is 219-09-9999' } },
      'builtin-pii',
    ],
    [
      'an AWS key id and secret in a nested argument',
      {
        connector: 'tools',
        tool: 'add',
        params: { a: 1, b: 2, meta: { creds: ['AKIAZ7QW3RTY5UIO9PLK / wJalrXUtnFEMI7K9MDENGbPxRfiCYzx8mpLe4Q2v'] } },
      },
      'builtin-secrets',
    ],
  ])(
    'blocks %s like the same text in a prompt, naming the built-in policy, and never calls the tool',
    async (_name, payload, policy) => {
      const res = await tool(payload);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'POLICY_VIOLATION', error: expect.stringContaining(policy) });
      expect(await lastAudit('acme', payload.connector, 'blocked')).toMatchObject({
        policies: expect.arrayContaining([policy]),
      });
    },
  );

  it('blocks an SSN passed as a query parameter ($1), not only in the statement', async () => {
    const res = await query({
      connector: 'pg',
      query: `SELECT id FROM ${w.id}.orders WHERE customer = $1`,
      params: ['219-09-9999'],
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'POLICY_VIOLATION', error: expect.stringContaining('builtin-pii') });
  });

  it('redacts PII in a tool result on request and counts the redactions in the metadata', async () => {
    const res = await tool({ connector: 'tools', tool: 'whois', params: { name: 'jane' }, options: { redact: true } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(JSON.stringify(body.result)).not.toContain('4111');
    expect(body.metadata.redactions).toMatchObject({ payment_card: 1 });
    expect(await auditOf('acme', body.metadata.audit_id)).toMatchObject({ redactions: { payment_card: 1 } });
  });

  it('refuses a tool outside allowedOperations with 403 OPERATION_NOT_ALLOWED', async () => {
    const res = await tool({ connector: 'tools', tool: 'delete_everything' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'OPERATION_NOT_ALLOWED', error: expect.any(String) });
  });
});

describe('tenancy', () => {
  it('hides a connector from an organization its document does not list, whatever the body says', async () => {
    const list = (await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors', headers: globex() })).json();
    expect(list.connectors.map((c: { name: string }) => c.name)).not.toContain('pg-acme');
    const res = await query({ connector: 'pg-acme', query: 'SELECT 1 AS one', organization_id: 'acme' }, globex());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'CONNECTOR_NOT_FOUND' });
    expect(
      (await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors/pg-acme/health', headers: globex() })).statusCode,
    ).toBe(404);
    expect((await query({ connector: 'pg-acme', query: 'SELECT 1 AS one' })).statusCode).toBe(200);
  });

  it("serves by default only the organizations of the Licenses in the connector's namespace", async () => {
    const res = await query({ connector: 'pg-elsewhere', query: 'SELECT 1 AS one' });
    expect(res.statusCode).toBe(404);
    expect(await lastAudit('acme', 'pg-elsewhere', 'refused')).toMatchObject({ error_code: 'CONNECTOR_NOT_FOUND' });
  });
});

describe('POST /api/v1/connectors/refresh', () => {
  it('reloads the Connector documents after a file changes', async () => {
    const before = (await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors', headers: acme() })).json();
    expect(before.connectors.map((c: { name: string }) => c.name)).not.toContain('pg-extra');
    await writeFile(
      join(w.gw.dir, 'extra.yaml'),
      connectorYaml('pg-extra', { type: 'postgres', connection: { fromEnv: 'PG_URL' }, allowedOperations: ['query'] }),
    );
    const res = await w.gw.app.inject({ method: 'POST', url: '/api/v1/connectors/refresh', headers: acme() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, refreshed_count: 9, message: expect.any(String) });
    expect(
      (await query({ connector: 'pg-extra', query: 'SELECT CAST($1 AS int) AS n', params: [7] })).json().data,
    ).toEqual([{ n: 7 }]);

    await writeFile(
      join(w.gw.dir, 'extra.yaml'),
      connectorYaml('pg-extra', {
        type: 'postgres',
        connection: { fromEnv: 'PG_URL' },
        allowedOperations: ['explain'],
      }),
    );
    await w.gw.app.inject({ method: 'POST', url: '/api/v1/connectors/refresh', headers: acme() });
    expect((await query({ connector: 'pg-extra', query: 'SELECT 1 AS n' })).json()).toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
    });
  });
});

describe('community mode', () => {
  it('serves every connector without credentials, within the rate limit', async () => {
    const gw = await startTestGateway({
      licensed: false,
      manifests: connectorYaml(
        'far',
        { type: 'postgres', connection: { fromEnv: 'PG_URL' }, allowedOperations: ['query'], organizations: ['acme'] },
        'elsewhere',
      ),
      env: { PG_URL, STEWARD_RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      const call = () =>
        gw.app.inject({
          method: 'POST',
          url: '/mcp/resources/query',
          payload: { connector: 'far', query: 'SELECT CAST($1 AS int) AS n', params: [5] },
        });
      expect((await call()).json()).toMatchObject({ success: true, data: [{ n: 5 }] });
      expect((await call()).statusCode).toBe(200);
      expect((await call()).statusCode).toBe(200);
      const limited = await call();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMITED', error: expect.any(String) });
    } finally {
      await gw.close();
    }
  });
});
