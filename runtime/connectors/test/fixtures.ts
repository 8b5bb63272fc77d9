import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { stringify } from 'yaml';
import { z } from 'zod';
import type { ConnectorResource } from '../../../api/resources.js';
export { eventually } from '../../../testing/eventually.js';

export const PG_URL = 'postgresql://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A unique suffix per test run, for schemas, tables and key prefixes. */
export const runId = () => `stw_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

export function connectorDoc(
  name: string,
  type: ConnectorResource['spec']['type'],
  env: string,
  spec: Partial<ConnectorResource['spec']> = {},
): ConnectorResource {
  return {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Connector',
    metadata: { name, namespace: 'default' },
    spec: { type, connection: { fromEnv: env }, allowedOperations: ['query'], ...spec },
  } as ConnectorResource;
}

export const connectorYaml = (doc: ConnectorResource): string =>
  stringify({ ...doc, metadata: { name: doc.metadata.name } });

export interface Running {
  url: string;
  port: number;
  server: Server;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1; `port` reuses a port (to restart a stopped server at the same URL). */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port = 0): Promise<Running> {
  const server = createServer(handler);
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    server,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}

/** A small JSON API: /users, /users/:id, /echo (POST), /whoami, /slow, /redirect-out, /redirect-in, /big. */
export function apiHandler(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const users = [
    { id: 1, name: 'Ada', email: 'ada.lovelace@corp.io' },
    { id: 2, name: 'Alan', ssn: '123-45-6789' },
  ];
  if (url.pathname === '/' || url.pathname === '/health') return json(200, { ok: true });
  if (url.pathname === '/users')
    return json(
      200,
      url.searchParams.get('name') ? users.filter((u) => u.name === url.searchParams.get('name')) : users,
    );
  if (url.pathname.startsWith('/users/'))
    return json(200, users.find((u) => String(u.id) === url.pathname.slice(7)) ?? {});
  if (url.pathname === '/echo') {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => json(200, { method: req.method, body: body ? (JSON.parse(body) as unknown) : null }));
    return;
  }
  if (url.pathname === '/slow') return void setTimeout(() => json(200, { late: true }), 10_000).unref();
  if (url.pathname === '/redirect-out') {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
    return void res.end();
  }
  if (url.pathname === '/redirect-in') {
    res.writeHead(302, { location: '/users' });
    return void res.end();
  }
  if (url.pathname === '/whoami') return json(200, { authorization: req.headers.authorization ?? null });
  if (url.pathname === '/big') return json(200, { blob: 'x'.repeat(2 * 1024 * 1024) });
  json(404, { error: 'not found' });
}

function testMcpServer(): McpServer {
  const server = new McpServer({ name: 'test-mcp', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'whois',
    { description: 'returns a contact', inputSchema: { name: z.string() }, annotations: { readOnlyHint: true } },
    async ({ name }) => ({ content: [{ type: 'text', text: `${name}: jane.doe@corp.io, card 4111 1111 1111 1111` }] }),
  );
  server.registerTool('delete_everything', { description: 'writes', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'done' }],
  }));
  server.registerResource('motd', 'memo://motd', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'hello from mcp' }],
  }));
  return server;
}

/** Serves a new server from `make` per request over stateless Streamable HTTP. */
function stateless(make: () => McpServer): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const server = make();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  };
}

/** A real MCP server (McpServer + StreamableHTTPServerTransport, stateless) with three tools and a resource. */
export const mcpHandler = () => stateless(testMcpServer);

/** A tool of `changingMcpHandler`'s server: it answers `<name>: <q>`. */
export interface ChangingTool {
  name: string;
  description: string;
}

/**
 * A real MCP server (McpServer, stateless Streamable HTTP) whose tools are read from `tools()` on every request, so
 * that a test can change a description or add a tool between two listings: an upstream that pulls the rug.
 */
export function changingMcpHandler(
  tools: () => readonly ChangingTool[],
): (req: IncomingMessage, res: ServerResponse) => void {
  return stateless(() => {
    const server = new McpServer({ name: 'changing-mcp', version: '1.0.0' });
    for (const t of tools())
      server.registerTool(
        t.name,
        { description: t.description, inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } },
        async ({ q }) => ({ content: [{ type: 'text', text: `${t.name}: ${q}` }] }),
      );
    return server;
  });
}

/** The same server over the older HTTP+SSE transport only (GET /sse, POST /messages): for the fallback. */
export function mcpSseHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const sessions = new Map<string, SSEServerTransport>();
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      void testMcpServer().connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && transport)
      return void transport.handlePostMessage(req, res);
    res.writeHead(405).end();
  };
}
