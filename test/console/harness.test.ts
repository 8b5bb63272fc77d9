import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason, openBrowser, type OpenBrowser } from '../../testing/browser.js';
import { eventually } from '../../testing/eventually.js';

/**
 * The browser harness the console tests stand on (testing/browser.ts) catches what they assert never happens: a
 * page that reaches off the machine, breaks its CSP or throws. Without this, "no request left the loopback address"
 * could pass because nothing was recorded.
 */

/** One page per path: `/leaky` fetches off the machine (no CSP); `/strict` breaks its own CSP and throws. */
const PAGES: Record<string, { csp?: string; html: string }> = {
  '/leaky': {
    html: `<h1>leaky</h1><img src="http://192.0.2.1/pixel.png"><script src="/leaky.js"></script>`,
  },
  '/leaky.js': { html: `fetch('https://example.com/beacon').catch(() => {}); new WebSocket('ws://192.0.2.2/live');` },
  '/strict': {
    csp: "default-src 'self'",
    html: `<h1>strict</h1><script>console.log('inline')</script><script src="/throws.js"></script>`,
  },
  '/throws.js': { html: `throw new Error('thrown by the page');` },
};

const skipReason = browserSkipReason();
const TITLE = 'the browser harness';

describe.skipIf(skipReason !== undefined)(
  skipReason ? `${TITLE} (skipped: ${skipReason})` : TITLE,
  { timeout: 120_000 },
  () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        const page = PAGES[req.url ?? ''];
        const type = req.url?.endsWith('.js') ? 'text/javascript' : 'text/html';
        res.writeHead(page ? 200 : 404, {
          'content-type': type,
          ...(page?.csp ? { 'content-security-policy': page.csp } : {}),
        });
        res.end(page?.html ?? '');
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      server?.close();
    });

    /** A fresh browser per case, so its records are the case's alone; answers once `until` holds. */
    async function visit(path: string, until: (b: OpenBrowser) => void): Promise<OpenBrowser> {
      const b = await openBrowser();
      try {
        await b.page.goto(`${base}${path}`);
        await b.page.locator('h1').waitFor();
        await eventually(() => until(b), 30_000);
        return b;
      } catch (err) {
        await b.close();
        throw err;
      }
    }

    it('records and refuses every request off the loopback address, WebSockets included', async () => {
      const b = await visit('/leaky', (x) => expect(x.offLoopback).toHaveLength(3));
      try {
        expect(b.requests.map((r) => r.url)).toEqual(
          expect.arrayContaining([`${base}/leaky`, `${base}/leaky.js`, 'http://192.0.2.1/pixel.png']),
        );
        expect([...b.offLoopback].sort()).toEqual([
          'http://192.0.2.1/pixel.png',
          'https://example.com/beacon',
          'ws://192.0.2.2/live',
        ]);
        expect(b.errors.some((e) => e.includes('ERR_BLOCKED_BY_CLIENT'))).toBe(true);
      } finally {
        await b.close();
      }
    });

    it('collects CSP violations and uncaught page errors', async () => {
      const b = await visit('/strict', (x) => {
        expect(x.cspViolations).not.toEqual([]);
        expect(x.errors).toContain('pageerror: thrown by the page');
      });
      try {
        expect(b.cspViolations).toEqual([expect.stringMatching(/^script-src-elem blocked inline/)]);
        expect(b.errors).toContain('pageerror: thrown by the page');
        expect(b.offLoopback).toEqual([]);
      } finally {
        await b.close();
      }
    });
  },
);
