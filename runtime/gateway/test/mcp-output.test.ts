import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_DENIED } from '../connectors/mcp-server.js';
import { McpClients, refusal, textOf } from './mcp-client.js';
import { startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';
import { OUTPUT_BLOCK } from './output-policies.js';

/**
 * A connector call's result passes the llm_output policies like an LLM answer: the built-in pack's
 * `builtin-output-redaction` (enabled by default) masks it in place, and a blocking llm_output policy withholds it.
 * Through the REST routes (app.inject) and through the official MCP client at /mcp.
 */

const CARD_MASKED = 'card [REDACTED:payment_card]';

let w: ConnectorWorld;
let base: string;
const clients = new McpClients(() => base);

beforeAll(async () => {
  w = await startConnectorWorld({ extraManifests: OUTPUT_BLOCK });
  await w.pgClient.query(`CREATE TABLE ${w.id}.notes (id int PRIMARY KEY, body text)`);
  await w.pgClient.query(
    `INSERT INTO ${w.id}.notes VALUES (1, 'card 4111 1111 1111 1111'), (2, 'say FORBIDDEN-WORD'), (3, 'all fine')`,
  );
  base = await w.gw.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await clients.close();
  await w?.close();
});

const acme = () => ({ 'x-license-key': w.gw.keys.acme });
const query = (payload: Record<string, unknown>) =>
  w.gw.app.inject({ method: 'POST', url: '/mcp/resources/query', headers: acme(), payload });
const tool = (payload: Record<string, unknown>) =>
  w.gw.app.inject({ method: 'POST', url: '/mcp/tools/execute', headers: acme(), payload });
const auditOf = async (id: string) =>
  (await w.gw.store.audit.get('acme', id))?.metadata?.connector_call as Record<string, unknown> | undefined;
const notes = (id: number) => ({
  connector: 'pg',
  query: `SELECT id, body FROM ${w.id}.notes WHERE id = $1`,
  params: [id],
});

async function lastBlocked(connector: string) {
  const { rows } = await w.gw.store.db.query<{ metadata: { connector_call: Record<string, unknown> } }>(
    `SELECT metadata FROM audit_entries WHERE organization_id = 'acme' AND metadata->'connector_call'->>'connector' = $1 AND metadata->'connector_call'->>'decision' = 'blocked' ORDER BY created_at DESC LIMIT 1`,
    [connector],
  );
  return rows[0]?.metadata.connector_call;
}

describe('output policies on connector results, REST', () => {
  it('masks a card number in a tool result in place, counting the redactions in the metadata and the audit', async () => {
    const res = await tool({ connector: 'tools', tool: 'whois', params: { name: 'jane' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.result).toEqual({ content: [{ type: 'text', text: `jane: [REDACTED:email], ${CARD_MASKED}` }] });
    expect(body.metadata.redactions).toEqual({ email: 1, payment_card: 1 });
    expect(await auditOf(body.metadata.audit_id)).toMatchObject({
      decision: 'allowed',
      redactions: { email: 1, payment_card: 1 },
    });
  });

  it('masks a card number in a query row in place, the column names untouched', async () => {
    const res = await query(notes(1));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual([{ id: 1, body: CARD_MASKED }]);
    expect(body.metadata.redactions).toEqual({ payment_card: 1 });
    expect(await auditOf(body.metadata.audit_id)).toMatchObject({ redactions: { payment_card: 1 } });
  });

  it.each([
    ['a query row', () => query(notes(2)), 'pg'],
    ['a tool result', () => tool({ connector: 'tools', tool: 'whois', params: { name: 'FORBIDDEN-WORD' } }), 'tools'],
  ])(
    'answers 403 POLICY_VIOLATION naming the llm_output policy when %s says the word, audited blocked, nothing returned',
    async (_name, call, connector) => {
      const res = await call();
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'POLICY_VIOLATION',
        error: expect.stringContaining('no-forbidden-word'),
        details: { stage: 'output', policies: ['no-forbidden-word'] },
      });
      expect(res.body).not.toContain('say FORBIDDEN-WORD');
      expect(res.body).not.toContain('jane');
      expect(await lastBlocked(connector)).toMatchObject({ decision: 'blocked', policies: ['no-forbidden-word'] });
    },
  );

  it('passes a benign result unchanged, with no redactions', async () => {
    const add = (await tool({ connector: 'tools', tool: 'add', params: { a: 2, b: 40 } })).json();
    expect(add.result).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(add.metadata.redactions).toBeUndefined();
    const row = (await query(notes(3))).json();
    expect(row.data).toEqual([{ id: 3, body: 'all fine' }]);
    expect(row.metadata.redactions).toBeUndefined();
  });
});

describe('output policies on connector results, MCP server', () => {
  const connect = () => clients.connect(acme());

  it('masks a tool result and a query row in place, with the counts in _meta.steward', async () => {
    const client = await connect();
    const who = (await client.callTool({ name: 'tools__whois', arguments: { name: 'jane' } })) as CallToolResult;
    expect(who.isError).toBeFalsy();
    expect(textOf(who)).toBe(`jane: [REDACTED:email], ${CARD_MASKED}`);
    expect(who._meta?.steward).toMatchObject({ redactions: { email: 1, payment_card: 1 } });
    const q = (await client.callTool({
      name: 'pg__query',
      arguments: { statement: `SELECT body FROM ${w.id}.notes WHERE id = $1`, params: [1] },
    })) as CallToolResult;
    expect(JSON.parse(textOf(q))).toMatchObject({ rows: [{ body: CARD_MASKED }], row_count: 1 });
  });

  it('answers a blocked result with a JSON-RPC error naming the policy, without the result', async () => {
    const client = await connect();
    const blocked = await refusal(
      client.callTool({
        name: 'pg__query',
        arguments: { statement: `SELECT body FROM ${w.id}.notes WHERE id = $1`, params: [2] },
      }),
    );
    expect(blocked.code).toBe(POLICY_DENIED);
    expect(blocked.message).toMatch(/POLICY_VIOLATION: .*no-forbidden-word/);
    expect(JSON.stringify(blocked)).not.toContain('say FORBIDDEN-WORD');
  });

  it('passes a benign tool result unchanged', async () => {
    const client = await connect();
    const add = (await client.callTool({ name: 'tools__add', arguments: { a: 20, b: 22 } })) as CallToolResult;
    expect(textOf(add)).toBe('42');
    expect((add._meta?.steward as { redactions?: unknown }).redactions).toBeUndefined();
  });
});
