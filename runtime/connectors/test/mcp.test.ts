import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';
import { connectorDoc, listen, mcpHandler, mcpSseHandler, type Running } from './fixtures.js';

let server: Running;
const open: Connector[] = [];
const make = async (
  options: Record<string, unknown> = { allowedCidrs: ['127.0.0.1/32'] },
  url = `${server.url}/mcp`,
) => {
  const c = await createConnector(connectorDoc('remote', 'mcp', 'MCP', { options }), url);
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };

beforeAll(async () => {
  server = await listen(mcpHandler());
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await server.stop();
});

describe('mcp connector (remote MCP server over Streamable HTTP)', () => {
  it("lists the remote server's tools as the connector's tools", async () => {
    const c = await make();
    await c.connect();
    expect(c.tools().map((t) => [t.name, t.writes])).toEqual([
      ['add', false],
      ['whois', false],
      ['delete_everything', true],
    ]);
    expect(c.tools()[0]!.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
  });

  it('calls a tool and returns its result', async () => {
    const res = await (await make()).execute('add', { a: 2, b: 40 }, limits);
    expect(res.result).toMatchObject({ content: [{ type: 'text', text: '42' }] });
  });

  it('redacts tool results when asked', async () => {
    const res = await (await make()).execute('whois', { name: 'Jane' }, { ...limits, redact: true });
    expect(res.result).toMatchObject({
      content: [{ type: 'text', text: 'Jane: [REDACTED:email], card [REDACTED:payment_card]' }],
    });
    expect(res.redactions).toEqual({ email: 1, payment_card: 1 });
  });

  it('refuses a tool without readOnlyHint on a read-only connector, and an unknown tool', async () => {
    await expect((await make()).execute('delete_everything', {}, limits)).rejects.toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
      reason: 'READ_ONLY',
    });
    await expect((await make()).execute('nope', {}, limits)).rejects.toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
      reason: 'UNKNOWN_TOOL',
    });
    const rw = await make({ allowedCidrs: ['127.0.0.1/32'], readOnly: false });
    expect((await rw.execute('delete_everything', {}, limits)).result).toMatchObject({ content: [{ text: 'done' }] });
  });

  it('reads a resource as a query', async () => {
    const c = await make();
    const res = await c.query(c.prepare('memo://motd', []), limits);
    expect(res.rows).toEqual([{ uri: 'memo://motd', text: 'hello from mcp' }]);
  });

  it('refuses a loopback server without allowedCidrs (SSRF guard)', async () => {
    await expect((await make({})).connect()).rejects.toMatchObject({ code: 'SSRF_REFUSED' });
  });

  it('falls back to the SSE transport when the server has no Streamable HTTP endpoint', async () => {
    const sse = await listen(mcpSseHandler());
    try {
      const c = await make({ allowedCidrs: ['127.0.0.1/32'] }, `${sse.url}/sse`);
      expect((await c.execute('add', { a: 20, b: 22 }, limits)).result).toMatchObject({ content: [{ text: '42' }] });
      expect((await c.health(2000)).ok).toBe(true);
      await c.close();
    } finally {
      await sse.stop();
    }
  });

  it('refuses a redirect of the MCP endpoint out of its path, on the same origin', async () => {
    const mcp = mcpHandler();
    const served: string[] = [];
    const host = await listen((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/mcp') return void res.writeHead(307, { location: '/admin/mcp' }).end();
      mcp(req, res);
    });
    try {
      await expect((await make(undefined, `${host.url}/mcp`)).connect()).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
      expect(served.filter((p) => p !== '/mcp')).toEqual([]);
    } finally {
      await host.stop();
    }
  });

  it('is healthy while the server answers', async () => {
    const h = await (await make()).health(2000);
    expect(h).toMatchObject({ ok: true });
  });
});
