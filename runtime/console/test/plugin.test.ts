/**
 * The governance console as the gateway serves it (runtime/console/plugin.ts): the same HTML shell at every page's
 * URL and its two built assets, public, with a Content-Security-Policy that allows the gateway's own origin only; not
 * served when the deps say so; and a start that fails, saying what to run, when the assets were never built.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { buildGateway } from '../../gateway/app.js';
import { consoleRoutes } from '../plugin.js';

const ASSETS = new URL('../assets/', import.meta.url);

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => gw.app.inject({ method: 'GET', url, headers });

/** The CSP's directives by name, each with its sources. */
function cspOf(res: LightMyRequestResponse): Map<string, string[]> {
  const header = String(res.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function expectSecured(res: LightMyRequestResponse): void {
  const csp = cspOf(res);
  expect(csp.get('default-src')).toEqual(["'self'"]);
  expect(csp.get('script-src')).toEqual(["'self'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  const header = String(res.headers['content-security-policy']);
  expect(header).not.toContain('unsafe-inline');
  expect(header).not.toContain('unsafe-eval');
  expect(header).not.toContain('*');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['set-cookie']).toBeUndefined();
}

describe('the console pages', () => {
  it.each(['/console', '/console/decisions', '/console/decisions/aud_x', '/console/sign-in', '/console/agents'])(
    'answers %s with the shell, without credentials, under the CSP and never cached',
    async (url) => {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expectSecured(res);
      expect(res.body).toMatch(/^<!doctype html>/);
    },
  );

  it('serves the same shell at every page, naming only its own assets', async () => {
    const shell = (await get('/console')).body;
    expect((await get('/console/policies')).body).toBe(shell);
    expect((await get('/console/decisions/aud_x')).body).toBe(shell);
    expect(shell).not.toContain('//');
    expect(shell).not.toMatch(/<script>|<style>|\sstyle=|\son[a-z]+=/i);
    const refs = [...shell.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(refs).toEqual([
      'data:,',
      expect.stringMatching(/^\/console\/assets\/console\.css\?v=[\w-]+$/),
      expect.stringMatching(/^\/console\/assets\/console\.js\?v=[\w-]+$/),
    ]);
  });

  it('answers a page it does not have with 404', async () => {
    expect((await get('/console/unknown-page')).statusCode).toBe(404);
    expect((await get('/console/decisions/aud_x/more')).statusCode).toBe(404);
  });
});

describe('the console assets', () => {
  it.each([
    { name: 'console.js', type: /^text\/javascript/ },
    { name: 'console.css', type: /^text\/css/ },
  ])(
    'serves $name as built, with its type and an ETag; a repeat with If-None-Match gets 304',
    async ({ name, type }) => {
      const res = await get(`/console/assets/${name}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(type);
      expectSecured(res);
      expect(res.rawPayload.equals(await readFile(new URL(name, ASSETS)))).toBe(true);
      const etag = String(res.headers.etag);
      expect(etag).toMatch(/^"[\w-]+"$/);

      const again = await get(`/console/assets/${name}`, { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      // a stale ETag gets the asset again
      expect((await get(`/console/assets/${name}`, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    },
  );

  it('answers the versioned URL the shell names with the asset', async () => {
    const shell = (await get('/console')).body;
    const js = /src="([^"]+)"/.exec(shell)![1]!;
    const res = await get(js);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it.each(['unknown.js', 'console.map', '..%2Fplugin.ts'])(
    'answers an asset it does not have (%s) with 404',
    async (name) => {
      const res = await get(`/console/assets/${name}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
      expect(res.body).not.toContain('import ');
    },
  );
});

describe('the console switched off', () => {
  it('is not served when the deps say console: false', async () => {
    const app = buildGateway({ ...gw.parts.deps, console: false });
    try {
      await app.ready();
      expect((await app.inject({ method: 'GET', url: '/console' })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/console/assets/console.js' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('the console without its built assets', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'steward-console-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fails to register, naming npm run gen', async () => {
    const app = Fastify();
    try {
      void app.register(consoleRoutes, { assetsDir: pathToFileURL(`${dir}/`) });
      await expect(app.ready()).rejects.toThrow(/npm run gen/);
    } finally {
      await app.close().catch(() => undefined);
    }
  });
});
