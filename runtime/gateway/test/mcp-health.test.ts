import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, listen, mcpHandler, startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

/** The MCP connector's periodic health check: the smallest interval the schema allows, a 1 s check timeout. */
const INTERVAL_S = 5;
const CHECK_TIMEOUT_MS = 1000;
/** One interval plus one check, plus slack for a loaded machine: the deadline, never a sleep. */
const ONE_INTERVAL_MS = INTERVAL_S * 1000 + CHECK_TIMEOUT_MS + 1500;

let w: ConnectorWorld;
beforeAll(async () => {
  w = await startConnectorWorld({ mcpHealthIntervalSeconds: INTERVAL_S });
});
afterAll(async () => {
  await w?.close();
});

const statusOfTools = async () => {
  const body = (
    await w.gw.app.inject({ method: 'GET', url: '/mcp/connectors', headers: { 'x-license-key': w.gw.keys.acme } })
  ).json();
  return body.connectors.find((c: { name: string }) => c.name === 'tools') as {
    status: string;
    last_health_check: string;
  };
};

describe('periodic connector health', () => {
  it('turns a stopped MCP server unhealthy within one interval, and healthy again once it is back', async () => {
    await eventually(async () => expect((await statusOfTools()).status).toBe('healthy'));
    await w.mcp.stop();
    await eventually(async () => expect((await statusOfTools()).status).toBe('unhealthy'), ONE_INTERVAL_MS);
    const down = await w.gw.app.inject({
      method: 'POST',
      url: '/mcp/tools/execute',
      headers: { 'x-license-key': w.gw.keys.acme },
      payload: { connector: 'tools', tool: 'add', params: { a: 1, b: 1 } },
    });
    expect(down.json()).toMatchObject({ success: false, error: expect.any(String) });
    expect(down.statusCode).toBeGreaterThanOrEqual(500);

    w.mcp = await listen(mcpHandler(), w.mcp.port);
    await eventually(async () => expect((await statusOfTools()).status).toBe('healthy'), ONE_INTERVAL_MS);
  });
});
