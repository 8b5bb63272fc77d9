import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClients, textOf } from './mcp-client.js';
import { startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

/**
 * Approvals of tool calls (issue 37, item 2), through the official MCP client against `/mcp` and the REST surface:
 * a policy's `require_approval` parks the call, an approver who is not the caller answers it, and the caller's
 * retry with the approval's id runs the call exactly once. Every step is an audit row.
 */
const APPROVAL_POLICY = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: big-sums-need-a-person}
spec:
  type: custom
  rego: |
    package custom.big_sums
    require_approval contains "adding more than 100 needs a person" if {
      input.mcp.phase == "call"
      input.mcp.tool == "add"
      input.mcp.arguments.a > 100
    }
---
`;

let w: ConnectorWorld;
let base: string;
const clients = new McpClients(() => base);
/** API keys of acme: a plain caller, an approver, a second approver. */
const keys = { caller: '', approver: '', approver2: '' };

beforeAll(async () => {
  w = await startConnectorWorld({ extraManifests: APPROVAL_POLICY });
  base = await w.gw.app.listen({ host: '127.0.0.1', port: 0 });
  const create = async (name: string, roles?: string[]) => {
    const res = await w.gw.app.inject({
      method: 'POST',
      url: '/api/clients',
      headers: { 'x-license-key': w.gw.keys.acme },
      payload: { name, ...(roles ? { roles } : {}) },
    });
    expect(res.statusCode).toBe(201);
    return String(res.json().api_key);
  };
  keys.caller = await create('caller');
  keys.approver = await create('approver', ['approver']);
  keys.approver2 = await create('approver-two', ['approver']);
});
afterAll(async () => {
  await clients.close();
  await w?.close();
});

const connect = (apiKey: string) => clients.connect({ authorization: `Bearer ${apiKey}` });

const stewardMeta = (r: CallToolResult) =>
  r._meta?.steward as { code?: string; details?: Record<string, unknown>; audit_id?: string };

async function answer(apiKey: string, id: string, decision: 'approve' | 'deny', comment?: string) {
  const res = await w.gw.app.inject({
    method: 'POST',
    url: `/api/approvals/${id}`,
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { decision, ...(comment ? { comment } : {}) },
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function rowsOf(approvalId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await w.gw.store.db.query<{ metadata: Record<string, unknown> }>(
    `SELECT metadata FROM audit_entries WHERE metadata->'approval'->>'id' = $1 ORDER BY created_at, id`,
    [approvalId],
  );
  return rows.map((r) => r.metadata);
}

describe('approvals of tool calls', () => {
  it('parks the call, refuses the caller and keys without the role, and runs it exactly once after approval', async () => {
    const caller = await connect(keys.caller);
    const parked = (await caller.callTool({ name: 'tools__add', arguments: { a: 150, b: 1 } })) as CallToolResult;
    expect(parked.isError).toBe(true);
    expect(textOf(parked)).toMatch(/^APPROVAL_REQUIRED: approval required by policy big-sums-need-a-person/);
    const id = String(stewardMeta(parked).details?.approval_id);
    expect(id).toMatch(/^apr_/);
    expect(textOf(parked)).toContain(`POST /api/approvals/${id}`);

    // the approver sees it pending, with the call's arguments
    const list = await w.gw.app.inject({
      method: 'GET',
      url: '/api/approvals?state=pending',
      headers: { authorization: `Bearer ${keys.approver}` },
    });
    expect(list.json().approvals).toContainEqual(
      expect.objectContaining({ id, state: 'pending', connector: 'tools', tool: 'add', arguments: { a: 150, b: 1 } }),
    );

    // not yet approved: the retry is refused, nothing runs
    const early = (await caller.callTool({
      name: 'tools__add',
      arguments: { a: 150, b: 1 },
      _meta: { approval_id: id },
    })) as CallToolResult;
    expect(textOf(early)).toMatch(/^APPROVAL_NOT_USABLE: .*not been approved/);

    // the caller has no approver role; a key without the role neither
    expect(await answer(keys.caller, id, 'approve')).toMatchObject({
      status: 403,
      body: { code: 'APPROVER_REQUIRED' },
    });

    const approved = await answer(keys.approver, id, 'approve', 'ok, once');
    expect(approved).toMatchObject({ status: 200, body: { id, state: 'approved', comment: 'ok, once' } });
    expect(await answer(keys.approver2, id, 'deny')).toMatchObject({
      status: 409,
      body: { code: 'APPROVAL_NOT_PENDING' },
    });

    // another call with the same approval: refused
    const other = (await caller.callTool({
      name: 'tools__add',
      arguments: { a: 151, b: 1 },
      _meta: { approval_id: id },
    })) as CallToolResult;
    expect(textOf(other)).toMatch(/^APPROVAL_NOT_USABLE: .*another call/);

    const ran = (await caller.callTool({
      name: 'tools__add',
      arguments: { a: 150, b: 1 },
      _meta: { approval_id: id },
    })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(textOf(ran)).toBe('151');
    const again = (await caller.callTool({
      name: 'tools__add',
      arguments: { a: 150, b: 1 },
      _meta: { approval_id: id },
    })) as CallToolResult;
    expect(textOf(again)).toMatch(/^APPROVAL_NOT_USABLE: .*used already/);

    // one row per step: parked, approved, ran (the refused retries are rows of their own, without the approval)
    const rows = await rowsOf(id);
    expect(rows.map((r) => r.decision)).toEqual(['approval_required', 'approved', 'allowed']);
    expect(rows[1]).toMatchObject({
      event: 'approval.approved',
      approval: { decided_by: expect.stringMatching(/^client:/) },
    });
    expect(rows.filter((r) => r.decision === 'allowed')).toHaveLength(1);
    const got = await w.gw.app.inject({
      method: 'GET',
      url: `/api/approvals/${id}`,
      headers: { authorization: `Bearer ${keys.caller}` },
    });
    expect(got.json()).toMatchObject({ id, state: 'used', used_at: expect.any(String) });
  });

  it('never lets the caller answer its own approval, even with the role', async () => {
    const approver = await connect(keys.approver);
    const parked = (await approver.callTool({ name: 'tools__add', arguments: { a: 500, b: 5 } })) as CallToolResult;
    const id = String(stewardMeta(parked).details?.approval_id);
    expect(await answer(keys.approver, id, 'approve')).toMatchObject({ status: 403, body: { code: 'SELF_APPROVAL' } });
    expect(await answer(keys.approver2, id, 'approve')).toMatchObject({ status: 200 });
  });

  it('parks REST calls with a coded answer, and a denied approval runs nothing', async () => {
    const call = (approvalId?: string) =>
      w.gw.app.inject({
        method: 'POST',
        url: '/mcp/tools/execute',
        headers: { authorization: `Bearer ${keys.caller}` },
        payload: {
          connector: 'tools',
          tool: 'add',
          params: { a: 300, b: 3 },
          ...(approvalId ? { approval_id: approvalId } : {}),
        },
      });
    const parked = await call();
    expect(parked.statusCode).toBe(403);
    const body = parked.json() as {
      code: string;
      details: { approval_id: string; approve: string; policies: string[] };
    };
    expect(body).toMatchObject({ code: 'APPROVAL_REQUIRED', details: { policies: ['big-sums-need-a-person'] } });
    expect(body.details.approve).toBe(`/api/approvals/${body.details.approval_id}`);
    expect(await answer(keys.approver, body.details.approval_id, 'deny', 'no')).toMatchObject({
      status: 200,
      body: { state: 'denied' },
    });
    const retried = await call(body.details.approval_id);
    expect(retried.statusCode).toBe(409);
    expect(retried.json()).toMatchObject({ code: 'APPROVAL_NOT_USABLE', details: { reason: 'DENIED' } });
    // below the policy's threshold nothing is parked
    const small = await w.gw.app.inject({
      method: 'POST',
      url: '/mcp/tools/execute',
      headers: { authorization: `Bearer ${keys.caller}` },
      payload: { connector: 'tools', tool: 'add', params: { a: 3, b: 3 } },
    });
    expect(small.statusCode).toBe(200);
  });

  it('shows a caller without the role only its own approvals', async () => {
    const list = await w.gw.app.inject({
      method: 'GET',
      url: '/api/approvals',
      headers: { authorization: `Bearer ${keys.caller}` },
    });
    const approvals = list.json().approvals as { requested_by: string }[];
    expect(approvals.length).toBeGreaterThan(0);
    expect(new Set(approvals.map((a) => a.requested_by)).size).toBe(1);
  });
});
