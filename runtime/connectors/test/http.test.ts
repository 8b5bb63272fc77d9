import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';
import { apiHandler, connectorDoc, listen, type Running } from './fixtures.js';

let api: Running;
const open: Connector[] = [];
const LOOPBACK = { allowedCidrs: ['127.0.0.0/8'] };
const make = async (options: Record<string, unknown> = LOOPBACK, url = api.url) => {
  const c = await createConnector(connectorDoc('api', 'http', 'API', { options }), url);
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };

beforeAll(async () => {
  api = await listen(apiHandler);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await api.stop();
});

describe('http connector', () => {
  it('GETs a path with $1 filled from params, and an object as the query string', async () => {
    const c = await make();
    expect((await c.query(c.prepare('/users/$1', [2]), limits)).rows).toEqual([
      { id: 2, name: 'Alan', ssn: '123-45-6789' },
    ]);
    const res = await c.query(c.prepare('/users', { name: 'Ada' }), limits);
    expect(res.rows).toEqual([{ id: 1, name: 'Ada', email: 'ada.lovelace@corp.io' }]);
  });

  it('treats statements as paths below the base URL path, and refuses ../ out of it', async () => {
    const c = await make(LOOPBACK, `${api.url}/users/`);
    expect((await c.query(c.prepare('/1', []), limits)).rows).toEqual([
      { id: 1, name: 'Ada', email: 'ada.lovelace@corp.io' },
    ]);
    expect(() => c.prepare('/../whoami', [])).toThrow(
      expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'OUTSIDE_BASE_PATH' }),
    );
    expect(() => c.prepare('/%2e%2e/whoami', [])).toThrow(expect.objectContaining({ reason: 'OUTSIDE_BASE_PATH' }));
  });

  it('redacts answers when asked', async () => {
    const c = await make();
    const res = await c.query(c.prepare('/users', []), { ...limits, redact: true });
    expect(res.rows).toEqual([
      { id: 1, name: 'Ada', email: '[REDACTED:email]' },
      { id: 2, name: 'Alan', ssn: '[REDACTED:us_ssn]' },
    ]);
    expect(res.redactions).toEqual({ email: 1, us_ssn: 1 });
  });

  it('sends writes through the request tool only when the connector is not read-only', async () => {
    await expect(
      (await make()).execute('request', { method: 'POST', path: '/echo', body: { a: 1 } }, limits),
    ).rejects.toMatchObject({ code: 'OPERATION_NOT_ALLOWED' });
    const res = await (
      await make({ ...LOOPBACK, readOnly: false })
    ).execute('request', { method: 'POST', path: '/echo', body: { a: 1 } }, limits);
    expect(res.result).toEqual({ status: 200, body: { method: 'POST', body: { a: 1 } } });
  });

  it('refuses loopback unless allowedCidrs lists it (checked at connect time)', async () => {
    // an IP literal has no lookup: it is judged when the URL is resolved
    const closed = await make({});
    expect(() => closed.prepare('/users', [])).toThrow(
      expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'PRIVATE_ADDRESS' }),
    );
    // a host name is judged on the address the socket connects to
    const byName = await make({}, api.url.replace('127.0.0.1', 'localhost'));
    await expect(byName.query(byName.prepare('/users', []), limits)).rejects.toMatchObject({ code: 'SSRF_REFUSED' });
    const allowedByName = await make(
      { allowedCidrs: ['127.0.0.0/8', '::1/128'] },
      api.url.replace('127.0.0.1', 'localhost'),
    );
    expect((await allowedByName.query(allowedByName.prepare('/users', []), limits)).row_count).toBe(2);
  });

  it.each([
    ['IPv4-compatible', '[::7f00:1]'],
    ['IPv4-translated', '[::ffff:0:7f00:1]'],
    ['6to4', '[2002:7f00:1::1]'],
    ['Teredo', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'],
    ['site-local', '[fec0::1]'],
  ])('refuses the %s spelling of loopback %s even with loopback in allowedCidrs', async (_name, host) => {
    const c = await make(LOOPBACK, `http://${host}:${api.port}`);
    expect(() => c.prepare('/users', [])).toThrow(
      expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'PRIVATE_ADDRESS' }),
    );
  });

  it('refuses paths that leave the origin and redirects off it; follows same-origin redirects', async () => {
    const c = await make();
    expect(() => c.prepare('//evil.example.com/x', [])).toThrow(expect.objectContaining({ code: 'SSRF_REFUSED' }));
    expect(() => c.prepare('/x', { url: 'http://169.254.169.254/' })).not.toThrow();
    await expect(c.query(c.prepare('/redirect-out', []), limits)).rejects.toMatchObject({
      code: 'SSRF_REFUSED',
      reason: 'REDIRECT_OFF_ORIGIN',
    });
    expect((await c.query(c.prepare('/redirect-in', []), limits)).row_count).toBe(2);
  });

  it('sends credentials from the connection URL as Basic or Bearer, and never shows them', async () => {
    const basic = await make(LOOPBACK, api.url.replace('http://', 'http://alice:s3cret-pw@'));
    expect((await basic.query(basic.prepare('/whoami', []), limits)).rows).toEqual([
      { authorization: `Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}` },
    ]);
    const bearer = await make(LOOPBACK, api.url.replace('http://', 'http://bearer:tok-123456@'));
    expect((await bearer.query(bearer.prepare('/whoami', []), limits)).rows).toEqual([
      { authorization: 'Bearer tok-123456' },
    ]);
    const err = (await basic.query(basic.prepare('/missing', []), limits).catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED', reason: 'HTTP_404' });
    expect(JSON.stringify({ m: err.message, e: err })).not.toContain('s3cret-pw');
  });

  it('refuses an answer over the byte cap and times out a slow one', async () => {
    const c = await make();
    await expect(c.query(c.prepare('/big', []), { ...limits, maxResultBytes: 64 * 1024 })).rejects.toMatchObject({
      code: 'RESULT_TOO_LARGE',
    });
    await expect(c.query(c.prepare('/slow', []), { ...limits, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'CONNECTOR_TIMEOUT',
    });
  });
});

describe('http connector redirects and the base path', () => {
  it('refuses a same-origin redirect from /api/x to /admin/secret, as it refuses /admin/secret given directly', async () => {
    const served: string[] = [];
    const host = await listen((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/api/x') return void res.writeHead(302, { location: '/admin/secret' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ secret: 'admin-only' }));
    });
    try {
      const c = await make(LOOPBACK, `${host.url}/api`);
      expect(() => c.prepare('/../admin/secret', [])).toThrow(
        expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'OUTSIDE_BASE_PATH' }),
      );
      await expect(c.query(c.prepare('/x', []), limits)).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
      await expect(c.execute('request', { method: 'GET', path: '/x' }, limits)).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
      expect(served).toEqual(['/api/x', '/api/x']);
    } finally {
      await host.stop();
    }
  });
});

describe('http connector and encoded traversal (a backend that decodes before it routes)', () => {
  it.each([
    ['an encoded slash', '/..%2fadmin/secret'],
    ['an encoded slash, upper case', '/..%2Fadmin/secret'],
    ['encoded dots and slash', '/%2e%2e%2fadmin/secret'],
    ['an encoded backslash', '/..%5cadmin/secret'],
    ['a double-encoded slash', '/..%252fadmin/secret'],
    ['a path parameter on a dot segment', '/..;/admin/secret'],
  ])('refuses %s in a path, given directly or by a redirect', async (_name, path) => {
    const served: string[] = [];
    const host = await listen((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/api/x') return void res.writeHead(302, { location: `/api${path}` }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ secret: 'admin-only' }));
    });
    try {
      const c = await make(LOOPBACK, `${host.url}/api`);
      expect(() => c.prepare(path, [])).toThrow(
        expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'ENCODED_PATH' }),
      );
      await expect(c.query(c.prepare('/x', []), limits)).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'ENCODED_PATH',
      });
      expect(served).toEqual(['/api/x']);
    } finally {
      await host.stop();
    }
  });

  it('refuses a $1 parameter that would put a slash or a dot segment into the path', async () => {
    const c = await make(LOOPBACK, `${api.url}/api`);
    expect(() => c.prepare('/users/$1', ['../../admin'])).toThrow(expect.objectContaining({ reason: 'ENCODED_PATH' }));
    expect(() => c.prepare('/users/$1', ['..'])).toThrow(expect.objectContaining({ reason: 'ENCODED_PATH' }));
    expect(c.prepare('/users/$1', ['ada lovelace']).text).toBe('/api/users/ada%20lovelace');
  });
});
