import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClients } from './mcp-client.js';
import { startConnectorWorld, type ConnectorWorld } from './mcp-fixtures.js';

/**
 * Steward's MCP server under the MCP authorization spec (issue 37, item 4), against a local authorization server in
 * this test (its RFC 8414 metadata and JWKS over HTTP; tokens signed with its key): RFC 9728 metadata, the 401 and
 * 403 challenges, audience and scopes, through the official MCP client; license keys keep working.
 */
const RESOURCE = 'https://steward.test/mcp';
const SCOPES = { 'tools:add': ['tools__add'], 'sql:read': ['pg__*', 'maria__query'] };

let w: ConnectorWorld;
let base: string;
let issuer: string;
let idp: Server;
let key: CryptoKey;
const clients = new McpClients(() => base);

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  idp = createServer((req, res) => {
    const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (req.url === '/.well-known/oauth-authorization-server') return json({ issuer, jwks_uri: `${issuer}/jwks.json` });
    if (req.url === '/jwks.json') return json({ keys: [jwk] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  w = await startConnectorWorld({
    env: {
      STEWARD_MCP_OAUTH_ISSUER: issuer,
      STEWARD_MCP_RESOURCE: RESOURCE,
      STEWARD_MCP_OAUTH_SCOPES: JSON.stringify(SCOPES),
      STEWARD_MCP_OAUTH_ORGANIZATION: 'acme',
    },
  });
  base = await w.gw.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await clients.close();
  await w?.close();
  await new Promise<void>((resolve) => idp?.close(() => resolve()));
});

async function token(o: { scope: string; audience?: string; expiresIn?: string; org?: string }): Promise<string> {
  return new SignJWT({ scope: o.scope, ...(o.org ? { steward_organization: o.org } : {}) })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(o.audience ?? RESOURCE)
    .setSubject('agent-7')
    .setIssuedAt()
    .setExpirationTime(o.expiresIn ?? '5m')
    .sign(key);
}

const connect = (headers: Record<string, string>) => clients.connect(headers);

/** A raw JSON-RPC POST to /mcp: status, WWW-Authenticate and body. */
async function rpc(headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.text() };
}

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const callTool = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
});
const META = 'resource_metadata="https://steward.test/.well-known/oauth-protected-resource/mcp"';

describe('OAuth on /mcp', () => {
  it('publishes RFC 9728 metadata naming the issuer and the scopes', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await w.gw.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [issuer],
        scopes_supported: ['tools:add', 'sql:read'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers a request without credentials 401 with resource_metadata and the scopes', async () => {
    const r = await rpc({}, listTools);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain(META);
    expect(r.challenge).toContain('scope="tools:add sql:read"');
  });

  it('refuses a token for another audience, an expired one and a forged one with 401 invalid_token', async () => {
    for (const t of [
      await token({ scope: 'tools:add', audience: 'https://elsewhere.test/mcp' }),
      await token({ scope: 'tools:add', expiresIn: '-1m' }),
      (await token({ scope: 'tools:add' })).replace(/\.[^.]+$/, '.AAAA'),
    ]) {
      const r = await rpc({ authorization: `Bearer ${t}` }, listTools);
      expect(r.status).toBe(401);
      expect(r.challenge).toContain('error="invalid_token"');
      expect(r.challenge).toContain(META);
    }
  });

  it('lists and calls the tools a valid token’s scopes reach, through the MCP client', async () => {
    const client = await connect({ authorization: `Bearer ${await token({ scope: 'tools:add' })}` });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['tools__add']);
    const r = (await client.callTool({ name: 'tools__add', arguments: { a: 40, b: 2 } })) as CallToolResult;
    expect(r.content).toEqual([{ type: 'text', text: '42' }]);
    // the call is audited under the token's organization and subject
    const auditId = (r._meta?.steward as { audit_id: string }).audit_id;
    expect(await w.gw.store.audit.get('acme', auditId)).toMatchObject({ clientId: 'oauth:agent-7' });
  });

  it('answers a tool outside the token’s scopes 403 insufficient_scope, naming the scope that would grant it', async () => {
    const t = await token({ scope: 'tools:add' });
    const r = await rpc({ authorization: `Bearer ${t}` }, callTool('pg__query', { statement: 'SELECT 1' }));
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { scopes: ['sql:read'] } });
    expect(r.challenge).toContain('error="insufficient_scope"');
    expect(r.challenge).toContain('scope="sql:read"');
    expect(r.challenge).toContain(META);
    const wider = await rpc(
      { authorization: `Bearer ${await token({ scope: 'tools:add sql:read' })}` },
      callTool('pg__query', { statement: 'SELECT 1 AS one' }),
    );
    expect(wider.status).toBe(200);
  });

  it('keeps license and API keys working beside tokens', async () => {
    const client = await connect({ 'x-license-key': w.gw.keys.acme });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['tools__add', 'pg__query']),
    );
  });
});
