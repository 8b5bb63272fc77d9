/**
 * A headless Chromium for the console's browser tests, benchmark and screenshots: the machine's own Chromium
 * (Debian's `chromium` package; no browser download) driven by playwright-core. Every context it opens records each
 * request its pages make and refuses any whose host is not a loopback address, so that a test can assert that
 * nothing left 127.0.0.1, and collects console errors, uncaught page errors and Content-Security-Policy violations,
 * so that a test can assert that none happened. Every wait has a deadline.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';

/** Where Chromium is looked for when STEWARD_CHROMIUM does not say. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** The flags of every launch: no sandbox (containers), no GPU, and none of Chromium's own calls home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium binary: STEWARD_CHROMIUM, else the Debian package's. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.STEWARD_CHROMIUM ?? DEFAULT_CHROMIUM;
}

/**
 * Why the browser tests cannot run here, or undefined when they can. Only a machine without Chromium and outside CI
 * skips them; under `CI=true` a missing Chromium is the tests' failure (the launch says which path it tried).
 */
export function browserSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = chromiumPath(env);
  if (existsSync(path) || env.CI) return undefined;
  return `no Chromium at ${path} (apt-get install chromium, or set STEWARD_CHROMIUM); CI is not set`;
}

/** True for a URL that stays on this machine: a loopback host, or no network at all (data:, blob:, about:). */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol))
    return ['data:', 'blob:', 'about:'].includes(parsed.protocol);
  return isLoopbackHost(parsed.hostname);
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
    // NB: the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1
    const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
    return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
  }
  return false;
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** `document`, `script`, `fetch`, `stylesheet`, `websocket`, ... */
  resourceType: string;
}

export interface LaunchOptions {
  /** @default chromiumPath() */
  executablePath?: string;
  /** The deadline of Chromium's start. @default 60 s */
  launchTimeoutMs?: number;
}

export interface ContextOptions {
  /** @default 1280×800 */
  viewport?: { width: number; height: number };
  /** The deadline of every action and wait that does not set its own. @default 30 s */
  actionTimeoutMs?: number;
  /** The deadline of every navigation that does not set its own. @default 30 s */
  navigationTimeoutMs?: number;
}

/** One browser context with its page and what the harness saw of it. */
export interface WatchedContext {
  context: BrowserContext;
  page: Page;
  /** Every request the context's pages made, in order, including the refused ones. */
  requests: RecordedRequest[];
  /**
   * The URLs of the requests whose host is not a loopback address: refused by the harness, or blocked earlier by the
   * page's CSP (Chromium still reports those as requests).
   */
  offLoopback: string[];
  /** Console messages of type `error`, uncaught page errors and CSP violations, each as one line. */
  errors: string[];
  /** The CSP violations alone, as `<directive> blocked <uri>` (also in `errors`). */
  cspViolations: string[];
  close(): Promise<void>;
}

export interface OpenBrowser extends WatchedContext {
  browser: Browser;
}

const CLOSE_TIMEOUT_MS = 15_000;

/** Launches Chromium headless, bounded by `launchTimeoutMs`. */
export async function launchChromium(o: LaunchOptions = {}): Promise<Browser> {
  const executablePath = o.executablePath ?? chromiumPath();
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (set STEWARD_CHROMIUM)`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: o.launchTimeoutMs ?? 60_000,
  });
}

/** The binding the init script reports CSP violations through (CDP bindings are not subject to the page's CSP). */
const CSP_BINDING = '__stewardCspViolation';
const CSP_LISTENER = `document.addEventListener('securitypolicyviolation', (e) => {
  window.${CSP_BINDING}(e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
});`;

/** A fresh context of `browser` (no cookies, no storage) with one page, recording and fencing its requests. */
export async function openContext(browser: Browser, o: ContextOptions = {}): Promise<WatchedContext> {
  const context = await browser.newContext({ viewport: o.viewport ?? { width: 1280, height: 800 } });
  context.setDefaultTimeout(o.actionTimeoutMs ?? 30_000);
  context.setDefaultNavigationTimeout(o.navigationTimeoutMs ?? 30_000);
  const requests: RecordedRequest[] = [];
  const offLoopback: string[] = [];
  const errors: string[] = [];
  const cspViolations: string[] = [];

  const counted = new WeakSet<Request>();
  const offTheMachine = (r: Request) => {
    if (counted.has(r)) return;
    counted.add(r);
    offLoopback.push(r.url());
  };
  // NB: the context's events and routes, not the page's: popups and workers are fenced too.
  context.on('request', (r) => {
    requests.push({ method: r.method(), url: r.url(), resourceType: r.resourceType() });
    if (!isLoopbackUrl(r.url())) offTheMachine(r);
  });
  await context.route('**/*', async (route) => {
    if (isLoopbackUrl(route.request().url())) return route.continue();
    offTheMachine(route.request());
    await route.abort('blockedbyclient');
  });
  // NB: WebSockets do not pass through route(); they have a router of their own.
  await context.routeWebSocket(
    (url) => !isLoopbackUrl(url.href),
    (ws) => {
      requests.push({ method: 'GET', url: ws.url(), resourceType: 'websocket' });
      offLoopback.push(ws.url());
      void ws.close({ code: 1008, reason: 'off the loopback address' });
    },
  );
  await context.exposeBinding(CSP_BINDING, (_source, line: unknown) => {
    cspViolations.push(String(line));
    errors.push(`csp: ${String(line)}`);
  });
  await context.addInitScript({ content: CSP_LISTENER });

  const watch = (page: Page) => {
    // NB: the ones off the loopback address are recorded by their router above
    page.on('websocket', (ws) => {
      if (isLoopbackUrl(ws.url())) requests.push({ method: 'GET', url: ws.url(), resourceType: 'websocket' });
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  };
  context.on('page', watch);
  const page = await context.newPage();
  return {
    context,
    page,
    requests,
    offLoopback,
    errors,
    cspViolations,
    close: () => bounded(context.close(), 'closing the browser context'),
  };
}

/** Chromium and one fresh context: what a test file needs. `close()` ends both. */
export async function openBrowser(o: LaunchOptions & ContextOptions = {}): Promise<OpenBrowser> {
  const browser = await launchChromium(o);
  try {
    const watched = await openContext(browser, o);
    return {
      ...watched,
      browser,
      close: async () => {
        await watched.close().catch(() => undefined);
        await closeBrowser(browser);
      },
    };
  } catch (err) {
    await closeBrowser(browser).catch(() => undefined);
    throw err;
  }
}

/** Closes Chromium, bounded. */
export const closeBrowser = (browser: Browser): Promise<void> => bounded(browser.close(), 'closing Chromium');

async function bounded(p: Promise<void>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${CLOSE_TIMEOUT_MS} ms`)), CLOSE_TIMEOUT_MS);
  });
  try {
    await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
