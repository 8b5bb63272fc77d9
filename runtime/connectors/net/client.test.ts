import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Running } from '../test/fixtures.js';
import { GuardedHttp } from './client.js';

/**
 * Redirects stay below the base URL's path, on both ways out of GuardedHttp: `request` (http connector) and
 * `fetch` (MCP SDK). A real server on 127.0.0.1 answers `/api/*` with redirects and counts every path it serves.
 */
let server: Running;
const served: string[] = [];
const open: GuardedHttp[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  served.push(path);
  const redirect = (location: string) => void res.writeHead(302, { location }).end();
  if (path === '/api/out') return redirect('/admin/secret');
  if (path === '/api/out-absolute') return redirect(`${server.url}/admin/secret`);
  if (path === '/api/out-dotdot') return redirect('/api/../admin/secret');
  if (path === '/api/out-sibling') return redirect('/api-admin/secret');
  if (path === '/api/in') return redirect('/api/data');
  if (path === '/api/in-relative') return redirect('data');
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path }));
}

const guarded = (baseUrl = `${server.url}/api`) => {
  const http = new GuardedHttp({
    baseUrl,
    allowedCidrs: ['127.0.0.0/8'],
    maxRedirects: 3,
    connectTimeoutMs: 2000,
    poolMax: 2,
  });
  open.push(http);
  return http;
};
const get = (http: GuardedHttp, path: string) =>
  http.request(new URL(path, server.url), {
    method: 'GET',
    headers: {},
    signal: AbortSignal.timeout(5000),
    maxBytes: 1 << 20,
  });

beforeAll(async () => {
  server = await listen(handler);
});
afterAll(async () => {
  await Promise.all(open.map((h) => h.close()));
  await server.stop();
});

describe('GuardedHttp redirects and the base path', () => {
  it.each(['/api/out', '/api/out-absolute', '/api/out-dotdot', '/api/out-sibling'])(
    'request() refuses the same-origin redirect of %s out of /api, and never asks for the target',
    async (path) => {
      served.length = 0;
      await expect(get(guarded(), path)).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
      expect(served).toEqual([path]);
    },
  );

  it.each(['/api/out', '/api/out-absolute', '/api/out-dotdot', '/api/out-sibling'])(
    'fetch() refuses the same-origin redirect of %s out of /api, and never asks for the target',
    async (path) => {
      served.length = 0;
      await expect(guarded().fetch(`${server.url}${path}`)).rejects.toMatchObject({
        code: 'SSRF_REFUSED',
        reason: 'REDIRECT_OUTSIDE_BASE_PATH',
      });
      expect(served).toEqual([path]);
    },
  );

  it('follows redirects that stay below the base path', async () => {
    const http = guarded();
    for (const path of ['/api/in', '/api/in-relative']) {
      expect(JSON.parse((await get(http, path)).body.toString())).toEqual({ path: '/api/data' });
      expect(await (await http.fetch(`${server.url}${path}`)).json()).toEqual({ path: '/api/data' });
    }
  });

  it('refuses a direct request outside the base path', () => {
    expect(() => guarded().resolve('/admin/secret')).toThrow(
      expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'OUTSIDE_BASE_PATH' }),
    );
    expect(() => guarded().resolve('/api-admin/secret')).toThrow(
      expect.objectContaining({ reason: 'OUTSIDE_BASE_PATH' }),
    );
    expect(guarded().resolve('/api/data').pathname).toBe('/api/data');
  });

  it('lets a base URL without a path redirect anywhere on its origin', async () => {
    expect(JSON.parse((await get(guarded(server.url), '/api/out')).body.toString())).toEqual({ path: '/admin/secret' });
  });
});
