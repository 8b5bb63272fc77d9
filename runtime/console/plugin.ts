/**
 * The governance console (docs/console.md, ADR 0023): a page the gateway serves at `/console`, built from
 * `console/` into `runtime/console/assets/` at build time (`npm run gen`), so that it fetches nothing from outside
 * the gateway's own origin. The shell and its two assets are public: the page signs in with the API's own
 * credentials (held in the tab's session storage, sent as `Authorization: Bearer`) and reads only the API, which
 * scopes every answer to the caller's organization. No cookie is set, so there is nothing to forge across sites;
 * the Content-Security-Policy allows the console's own origin and nothing else, and no other site may frame it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export const CONSOLE_PREFIX = '/console';

/** Every page of the console has a URL of its own; the server answers each with the same shell. */
export const CONSOLE_PAGES = ['', 'sign-in', 'decisions', 'policies', 'budgets', 'agents', 'connectors'] as const;

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every console answer: the CSP, and no sniffing, referrer, framing or cache of the shell. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const ASSET_TYPES = { 'console.js': 'text/javascript; charset=utf-8', 'console.css': 'text/css; charset=utf-8' };
type AssetName = keyof typeof ASSET_TYPES;

export interface ConsoleOptions {
  /** Where the built assets are. @default ./assets beside this module (also in the image's dist/) */
  assetsDir?: URL;
}

/** Reads the built assets; a missing one is a broken build, said at start rather than as a blank page. */
function loadAssets(dir: URL): Map<AssetName, Asset> {
  const assets = new Map<AssetName, Asset>();
  for (const [name, type] of Object.entries(ASSET_TYPES) as [AssetName, string][]) {
    let body: Buffer;
    try {
      body = readFileSync(new URL(name, dir));
    } catch (err) {
      throw new Error(
        `the console's ${name} is missing from ${dir.pathname} (run npm run gen, or set STEWARD_CONSOLE=false)`,
        { cause: err },
      );
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, type, etag });
  }
  return assets;
}

/** The one HTML document of every page: the script and stylesheet, versioned by their digests. */
function shell(assets: Map<AssetName, Asset>): string {
  const v = (name: AssetName) => encodeURIComponent(assets.get(name)!.etag.slice(1, 13));
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Steward console</title>',
    // NB: no favicon request leaves for /favicon.ico
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="${CONSOLE_PREFIX}/assets/console.css?v=${v('console.css')}">`,
    `<script type="module" src="${CONSOLE_PREFIX}/assets/console.js?v=${v('console.js')}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><noscript>The Steward console needs JavaScript.</noscript></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const PUBLIC = { config: { auth: { require: 'none' } as const } };

export const consoleRoutes: FastifyPluginAsync<ConsoleOptions> = async (app, opts) => {
  const assets = loadAssets(opts.assetsDir ?? new URL('./assets/', import.meta.url));
  const html = Buffer.from(shell(assets));
  const secure = (reply: FastifyReply) => reply.headers(SECURITY_HEADERS);

  const page = async (_req: unknown, reply: FastifyReply) => {
    // NB: the shell names the assets' current digests, so it is never cached; the assets are, by digest.
    return secure(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
  };
  for (const p of CONSOLE_PAGES) app.get(`${CONSOLE_PREFIX}/${p}`, PUBLIC, page);
  app.get(CONSOLE_PREFIX, PUBLIC, page);
  // NB: one detail page per audit entry (`/console/decisions/<id>`), linked from the Decisions page
  app.get(`${CONSOLE_PREFIX}/decisions/:id`, PUBLIC, page);

  app.get<{ Params: { name: string } }>(`${CONSOLE_PREFIX}/assets/:name`, PUBLIC, async (req, reply) => {
    const asset = assets.get(req.params.name as AssetName);
    // NB: the app's coded 404, as for any path it does not serve
    if (!asset) return reply.callNotFound();
    secure(reply).header('etag', asset.etag).header('cache-control', 'public, max-age=300, must-revalidate');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });
};
