import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_DENIED } from '../connectors/mcp-server.js';
import { McpClients, refusal, textOf } from './mcp-client.js';
import { startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

/**
 * Tool policies with arguments and phases (issue 37, item 1), through the official MCP client against `/mcp` and
 * through the REST endpoints: `input.mcp.phase` tells listing from calling, `arguments` and `identity` are there to
 * decide on, and the pack's `builtin-sql-row-limit` refuses a statement's own LIMIT above 1,000.
 */
const PHASE_POLICIES = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: hide-whois}
spec:
  type: custom
  rego: |
    package custom.hide_whois
    deny contains "whois is not for agents to discover" if {
      input.mcp.phase == "list"
      input.mcp.tool == "whois"
    }
---
apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: unlucky-numbers}
spec:
  type: custom
  rego: |
    package custom.unlucky_numbers
    deny contains "13 is not added here" if {
      input.mcp.phase == "call"
      input.mcp.tool == "add"
      input.mcp.arguments.a == 13
    }
---
apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: no-api-for-globex}
spec:
  type: custom
  rego: |
    package custom.no_api_for_globex
    deny contains "globex does not call the HTTP API" if {
      input.mcp.identity.organization == "globex"
      input.mcp.connector == "api"
    }
---
`;

let w: ConnectorWorld;
let base: string;
const clients = new McpClients(() => base);

beforeAll(async () => {
  w = await startConnectorWorld({ extraManifests: PHASE_POLICIES });
  base = await w.gw.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await clients.close();
  await w?.close();
});

const connect = (key: string) => clients.connect({ 'x-license-key': key });

async function auditRows(auditId: string | undefined): Promise<number> {
  const { rows } = await w.gw.store.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_entries WHERE id = $1', [
    auditId,
  ]);
  return Number(rows[0]!.n);
}

describe('tool policies with phases', () => {
  it('hides a tool a policy denies at list time, from tools/list and from /mcp/connectors', async () => {
    const client = await connect(w.gw.keys.acme);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('tools__add');
    expect(names).not.toContain('tools__whois');
    const res = await w.gw.app.inject({
      method: 'GET',
      url: '/mcp/connectors',
      headers: { 'x-license-key': w.gw.keys.acme },
    });
    const tools = (res.json() as { connectors: { name: string; tools: string[] }[] }).connectors.find(
      (c) => c.name === 'tools',
    )!.tools;
    expect(tools).toEqual(['add']);
  });

  it('decides calls on their own phase: a tool hidden from the list is not refused by that policy', async () => {
    const client = await connect(w.gw.keys.acme);
    const r = (await client.callTool({ name: 'tools__whois', arguments: { name: 'ada' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
  });
});

describe('tool policies on arguments and identity', () => {
  it("refuses a call on its arguments with a JSON-RPC error naming the policy, and writes the call's audit row", async () => {
    const client = await connect(w.gw.keys.acme);
    const err = await refusal(client.callTool({ name: 'tools__add', arguments: { a: 13, b: 1 } }));
    expect(err.code).toBe(POLICY_DENIED);
    expect(err.message).toContain('unlucky-numbers');
    expect(err.data).toMatchObject({ code: 'POLICY_VIOLATION', policies: ['unlucky-numbers'] });
    const { rows } = await w.gw.store.db.query<{ metadata: Record<string, unknown> }>(
      `SELECT metadata FROM audit_entries WHERE metadata->'connector_call'->>'tool' = 'add'
         AND metadata->>'decision' = 'blocked_input'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.metadata.policies).toEqual(['unlucky-numbers']);
    const ok = (await client.callTool({ name: 'tools__add', arguments: { a: 12, b: 1 } })) as CallToolResult;
    expect(textOf(ok)).toBe('13');
    expect(await auditRows((ok._meta?.steward as { audit_id?: string }).audit_id)).toBe(1);
  });

  it('decides on the caller: one organization is refused what the other may call', async () => {
    const globex = await connect(w.gw.keys.globex);
    const err = await refusal(globex.callTool({ name: 'api__request', arguments: { method: 'GET', path: '/users' } }));
    expect(err.message).toContain('no-api-for-globex');
    const rest = await w.gw.app.inject({
      method: 'POST',
      url: '/mcp/tools/execute',
      headers: { 'x-license-key': w.gw.keys.globex },
      payload: { connector: 'api', tool: 'request', params: { method: 'GET', path: '/users' } },
    });
    expect(rest.statusCode).toBe(403);
    expect(rest.json()).toMatchObject({
      success: false,
      code: 'POLICY_VIOLATION',
      details: { policies: ['no-api-for-globex'] },
    });
    const acme = await connect(w.gw.keys.acme);
    const r = (await acme.callTool({
      name: 'api__request',
      arguments: { method: 'GET', path: '/users' },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
  });
});

describe('the pack: builtin-sql-row-limit', () => {
  it('refuses a statement whose own LIMIT is above 1,000, and runs LIMIT 10', async () => {
    const client = await connect(w.gw.keys.acme);
    const err = await refusal(
      client.callTool({ name: 'pg__query', arguments: { statement: `SELECT id FROM ${w.id}.orders LIMIT 5000` } }),
    );
    expect(err.message).toContain('builtin-sql-row-limit');
    expect(err.message).toContain('LIMIT 5000 is above 1000');
    const fromParam = await refusal(
      client.callTool({
        name: 'pg__query',
        arguments: { statement: `SELECT id FROM ${w.id}.orders LIMIT $1`, params: [5000] },
      }),
    );
    expect(fromParam.message).toContain('builtin-sql-row-limit');
    const ok = (await client.callTool({
      name: 'pg__query',
      arguments: { statement: `SELECT id FROM ${w.id}.orders ORDER BY id LIMIT 10` },
    })) as CallToolResult;
    expect(ok.isError, textOf(ok)).toBeFalsy();
    expect(JSON.parse(textOf(ok))).toMatchObject({ row_count: 3 });
    // no LIMIT of its own: the connector's cap applies, the policy has nothing to judge
    const capped = (await client.callTool({
      name: 'pg__query',
      arguments: { statement: `SELECT id FROM ${w.id}.orders` },
    })) as CallToolResult;
    expect(capped.isError).toBeFalsy();
  });

  it('gives policies the LIMIT as written, before the cap, through the REST endpoint too', async () => {
    const res = await w.gw.app.inject({
      method: 'POST',
      url: '/mcp/resources/query',
      headers: { 'x-license-key': w.gw.keys.acme },
      payload: { connector: 'maria', statement: `SELECT id FROM ${w.id}_orders LIMIT 5, 2000` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'POLICY_VIOLATION', details: { policies: ['builtin-sql-row-limit'] } });
  });
});
