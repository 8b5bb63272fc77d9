import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_DENIED } from '../connectors/mcp-server.js';
import { McpClients, refusal, textOf } from './mcp-client.js';
import { startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

/** The official MCP client, connected to Steward's `/mcp` over a real socket. */
let w: ConnectorWorld;
let base: string;
const clients = new McpClients(() => base);

beforeAll(async () => {
  w = await startConnectorWorld();
  base = await w.gw.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await clients.close();
  await w?.close();
});

const connect = (headers: Record<string, string>) => clients.connect(headers);

describe('Steward as an MCP server', () => {
  it("lists each connector's allowed tools, prefixed by the connector, for the caller's organization only", async () => {
    const acme = await connect({ 'x-license-key': w.gw.keys.acme });
    const names = (await acme.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'pg__query',
        'pg_acme__query',
        'maria__query',
        'tools__add',
        'tools__whois',
        'cache__get',
        'api__request',
        'api__query',
      ]),
    );
    expect(names).not.toContain('tools__delete_everything');
    expect(names).not.toContain('pg_elsewhere__query');
    const globex = await connect({ 'x-license-key': w.gw.keys.globex });
    expect((await globex.listTools()).tools.map((t) => t.name)).not.toContain('pg_acme__query');
  });

  it('calls tools through the governed path and audits them', async () => {
    const client = await connect({ 'x-license-key': w.gw.keys.acme });
    const q = (await client.callTool({
      name: 'pg__query',
      arguments: { statement: `SELECT customer FROM ${w.id}.orders WHERE id = $1`, params: [3] },
    })) as CallToolResult;
    expect(q.isError).toBeFalsy();
    expect(JSON.parse(textOf(q))).toMatchObject({ rows: [{ customer: 'grace' }], row_count: 1 });
    const auditId = (q._meta?.steward as { audit_id: string }).audit_id;
    expect((await w.gw.store.audit.get('acme', auditId))?.metadata?.connector_call).toMatchObject({
      via: 'mcp-server',
      connector: 'pg',
      decision: 'allowed',
      rows: 1,
    });

    const add = (await client.callTool({ name: 'tools__add', arguments: { a: 20, b: 22 } })) as CallToolResult;
    expect(textOf(add)).toBe('42');
  });

  it("answers a policy block with a JSON-RPC error, a guard refusal and another organization's tool with isError results, never transport failures", async () => {
    const client = await connect({ 'x-license-key': w.gw.keys.globex });
    const blocked = await refusal(
      client.callTool({ name: 'pg__query', arguments: { statement: `SELECT email FROM ${w.id}.customers` } }),
    );
    expect(blocked.code).toBe(POLICY_DENIED);
    expect(blocked.message).toMatch(/POLICY_VIOLATION: .*no-customer-reads/);
    expect(blocked.data).toMatchObject({ code: 'POLICY_VIOLATION', policies: ['no-customer-reads'] });
    const refused = (await client.callTool({
      name: 'pg__query',
      arguments: { statement: 'SELECT pg_sleep(5)' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^SQL_REFUSED: /);
    const hidden = (await client.callTool({
      name: 'pg_acme__query',
      arguments: { statement: 'SELECT 1 AS one' },
    })) as CallToolResult;
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toMatch(/^CONNECTOR_NOT_FOUND: /);
  });

  it('authenticates with the request headers: a key of no License cannot connect', async () => {
    await expect(connect({ 'x-license-key': w.gw.keys.unregistered })).rejects.toThrow(/LICENSE_VALIDATION_FAILED/);
  });

  it("answers what the transport would refuse in the gateway's error shape: a wrong Accept header, a body that is not JSON-RPC", async () => {
    const post = (accept: string, body: unknown) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'x-license-key': w.gw.keys.acme, 'content-type': 'application/json', accept },
        body: JSON.stringify(body),
      });
    const wrongAccept = await post('application/json', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(wrongAccept.status).toBe(406);
    expect(await wrongAccept.json()).toMatchObject({
      success: false,
      code: 'NOT_ACCEPTABLE',
      error: expect.any(String),
    });
    const notRpc = await post('application/json, text/event-stream', { connector: 'pg', query: 'SELECT 1' });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
  });

  it('has no server-sent stream or session: GET and DELETE answer 405 JSON', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await fetch(`${base}/mcp`, {
        method,
        headers: { 'x-license-key': w.gw.keys.acme, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(await res.json()).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED', error: expect.any(String) });
    }
  });
});
