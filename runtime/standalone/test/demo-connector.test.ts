import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneSettings } from '../../../cmd/config/settings.js';
import { createLogger } from '../../../platform/log.js';
import { eventually } from '../../../testing/eventually.js';
import { startStandalone, type Standalone } from '../main.js';

/** Standalone as `npm start` runs it (community mode, the sample manifests), on free ports and a fresh data folder. */
async function start(manifests: string): Promise<{ app: Standalone; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-demo-'));
  const config = standaloneSettings({
    STEWARD_GATEWAY_PORT: '0',
    STEWARD_ORCHESTRATOR_PORT: '0',
    STEWARD_DATA_DIR: dataDir,
    STEWARD_MANIFESTS: manifests,
    STEWARD_WATCH_MANIFESTS: 'false',
  });
  const app = await startStandalone(config, createLogger({ level: 'silent' }));
  return {
    app,
    async stop() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The connector-call audit rows of the demo connector with this decision, newest first. */
async function audited(app: Standalone, decision: string) {
  const { rows } = await app.store.db.query<{ metadata: { connector_call: Record<string, unknown> } }>(
    `SELECT metadata FROM audit_entries WHERE metadata->'connector_call'->>'connector' = 'demo-flights' AND metadata->'connector_call'->>'decision' = $1 ORDER BY created_at DESC`,
    [decision],
  );
  return rows.map((r) => r.metadata.connector_call);
}

describe('the demo connector that npm start serves', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start('config/samples');
  });
  afterAll(async () => {
    await s?.stop();
  });

  const query = (payload: Record<string, unknown>) =>
    s.app.gateway.inject({ method: 'POST', url: '/mcp/resources/query', payload });

  it('is listed by GET /mcp/connectors, healthy, with no credentials in community mode', async () => {
    await eventually(async () => {
      const body = (await s.app.gateway.inject({ method: 'GET', url: '/mcp/connectors' })).json();
      expect(body.connectors).toContainEqual(
        expect.objectContaining({
          name: 'demo-flights',
          type: 'pglite',
          status: 'healthy',
          allowed_operations: ['query'],
        }),
      );
    });
  });

  it('answers rows at POST /mcp/resources/query, audited like every connector call', async () => {
    const res = await query({
      connector: 'demo-flights',
      statement:
        'SELECT flight_no, destination, departure_date, price_usd FROM flights WHERE origin = $1 AND price_usd < $2 ORDER BY price_usd',
      params: ['SFO', 1000],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      data: [
        { flight_no: 'LH 455', destination: 'FRA', departure_date: '2026-03-15', price_usd: 940 },
        { flight_no: 'AF 83', destination: 'CDG', departure_date: '2026-03-15', price_usd: 985 },
      ],
      row_count: 2,
      columns: ['flight_no', 'destination', 'departure_date', 'price_usd'],
      metadata: {
        connector: 'demo-flights',
        type: 'pglite',
        operation: 'query',
        truncated: false,
        audit_id: expect.any(String),
      },
    });
    expect((await audited(s.app, 'allowed'))[0]).toMatchObject({
      via: 'rest',
      type: 'pglite',
      rows: 2,
      sql: { operation: 'select', tables: ['public.flights'] },
    });
  }, 60_000);

  it('answers the query tool at POST /mcp/tools/execute', async () => {
    const res = await s.app.gateway.inject({
      method: 'POST',
      url: '/mcp/tools/execute',
      payload: {
        connector: 'demo-flights',
        tool: 'query',
        params: { statement: 'SELECT count(*) AS flights FROM flights WHERE destination = $1', params: ['JFK'] },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      result: { rows: [{ flights: '3' }], row_count: 1, columns: ['flights'] },
      metadata: { connector: 'demo-flights', operation: 'query' },
    });
  }, 60_000);

  it.each([
    {
      name: 'an INSERT',
      statement: "INSERT INTO flights VALUES ('XX 1', 'Nobody', 'SFO', 'LAX', '2026-03-20', '09:00', 1, 1)",
    },
    { name: 'a DROP', statement: 'DROP TABLE flights' },
  ])(
    "refuses $name with the guard's SQL_REFUSED NOT_READ_ONLY, audited as refused",
    async ({ statement }) => {
      const res = await query({ connector: 'demo-flights', statement });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ success: false, code: 'SQL_REFUSED', details: { reason: 'NOT_READ_ONLY' } });
      expect((await audited(s.app, 'refused'))[0]).toMatchObject({
        error_code: 'SQL_REFUSED',
        reason: 'NOT_READ_ONLY',
      });
      const count = await query({ connector: 'demo-flights', statement: 'SELECT count(*) AS n FROM flights' });
      expect(count.json()).toMatchObject({ data: [{ n: '12' }] });
    },
    60_000,
  );

  it.each(['clients', 'audit_entries'])(
    "finds no %s: Steward's own tables are not in the demo database",
    async (table) => {
      // They are in Steward's store, where this very call is audited.
      await expect(s.app.store.db.query(`SELECT count(*) FROM ${table}`)).resolves.toBeDefined();
      const res = await query({ connector: 'demo-flights', statement: `SELECT * FROM ${table}` });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toMatchObject({
        success: false,
        code: 'CONNECTOR_QUERY_FAILED',
        error: expect.stringContaining(`relation "${table}" does not exist`),
      });
    },
    60_000,
  );
});

describe('STEWARD_MANIFESTS naming other folders', () => {
  let s: Awaited<ReturnType<typeof start>>;
  let own: string;
  beforeAll(async () => {
    own = await mkdtemp(join(tmpdir(), 'steward-own-manifests-'));
    await writeFile(
      join(own, 'agent.yaml'),
      'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: helper}\nspec: {type: coordinator, domain: generic}\n',
    );
    s = await start(own);
  });
  afterAll(async () => {
    await s?.stop();
    await rm(own, { recursive: true, force: true });
  });

  it('serves no demo connector', async () => {
    expect(s.app.source.list('AgentConfig').map((a) => a.metadata.name)).toEqual(['helper']);
    expect((await s.app.gateway.inject({ method: 'GET', url: '/mcp/connectors' })).json()).toEqual({
      connectors: [],
      count: 0,
    });
    const res = await s.app.gateway.inject({
      method: 'POST',
      url: '/mcp/resources/query',
      payload: { connector: 'demo-flights', statement: 'SELECT 1' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'CONNECTOR_NOT_FOUND' });
  });
});
