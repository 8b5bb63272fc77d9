/**
 * `npm run bench -- console` (issue 40): how long the governance console takes to show its data, against "the first
 * page renders in under 1 s on this machine". A standalone Steward (in this process, the console world of the
 * browser tests) with 10,000 audit rows written into its store first, so that the Overview summarises them and the
 * Decisions page pages through them on the server; the machine's Chromium, headless, 1280×800.
 *
 * Each figure is the page's own clock: from the navigation's start (`performance.timeOrigin`) to the animation frame
 * after the data first appears in the DOM (Overview: a number in `dd[data-metric=requests]`; Decisions: the first
 * `tr[data-entry-id]`), recorded by an init script's MutationObserver. *Cold*: a new browser context each run (no
 * HTTP cache, no session storage). *Warm*: one context that has loaded the page before.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { closeBrowser, launchChromium, openContext, type WatchedContext } from '../testing/browser.js';
import { seedAudit, startConsoleWorld } from '../testing/console-world.js';
import { machine, percentile, processFlags } from './report.js';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 20);
const SEEDED_ROWS = 10_000;
const ASSETS = ['runtime/console/assets/console.js', 'runtime/console/assets/console.css'];

/** What "the page's data is there" is, per page: a check of the DOM, by name. */
const PAGES = [
  { path: '/console', label: 'Overview (`/console`)', mark: 'requests', api: '/api/v1/audit/summary' },
  {
    path: '/console/decisions',
    label: 'Decisions (`/console/decisions`)',
    mark: 'entries',
    api: '/api/v1/audit/entries',
  },
] as const;

interface Run {
  /** navigation start to the frame after the data appeared */
  ms: number;
  /** the page's data request, start to end of its answer (Resource Timing) */
  apiMs: number;
}

/** Runs at document start: marks `window.__stewardMarks[name]` with the frame time after each check first holds. */
const MARKER = `(() => {
  const marks = {};
  window.__stewardMarks = marks;
  const checks = {
    requests: () => /\\d/.test(document.querySelector('dd[data-metric="requests"]')?.textContent ?? ''),
    entries: () => document.querySelector('tr[data-entry-id]') !== null,
  };
  const check = () => {
    for (const [name, holds] of Object.entries(checks)) {
      if (name in marks || !holds()) continue;
      marks[name] = null;
      requestAnimationFrame(() => { marks[name] = performance.now(); });
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

/** Navigates and answers the page's time to its data, and its data request's. */
async function timeTo(page: Page, url: string, mark: string, api: string): Promise<Run> {
  await page.goto(url);
  // NB: functions, not strings: the console's CSP forbids the eval a string predicate needs
  const handle = await page.waitForFunction(
    (name) => {
      const at = (globalThis as { __stewardMarks?: Record<string, number | null> }).__stewardMarks?.[name];
      return typeof at === 'number' ? at : undefined;
    },
    mark,
    { timeout: 30_000 },
  );
  const apiMs = await page.evaluate(
    (path) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname === path)
        .map((e) => e.duration)
        .at(-1) ?? NaN,
    api,
  );
  return { ms: Number(await handle.jsonValue()), apiMs };
}

async function context(browser: Browser): Promise<WatchedContext> {
  const c = await openContext(browser);
  await c.context.addInitScript({ content: MARKER });
  return c;
}

type Measured = (typeof PAGES)[number];

async function cold(browser: Browser, url: string, p: Measured): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c = await context(browser);
    try {
      runs.push(await timeTo(c.page, url, p.mark, p.api));
      check(c);
    } finally {
      await c.close();
    }
  }
  return runs;
}

async function warm(browser: Browser, url: string, p: Measured): Promise<Run[]> {
  const c = await context(browser);
  try {
    await timeTo(c.page, url, p.mark, p.api);
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await timeTo(c.page, url, p.mark, p.api));
    check(c);
    return runs;
  } finally {
    await c.close();
  }
}

/** A run the page spent on anything but the console is no measurement. */
function check(c: WatchedContext): void {
  if (c.offLoopback.length) throw new Error(`the console asked for ${c.offLoopback.join(', ')}`);
  if (c.errors.length) throw new Error(`the page reported: ${c.errors.join('; ')}`);
}

const fmt = (ms: number) => ms.toFixed(0);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
function cells(runs: Run[]): string {
  const ms = sorted(runs.map((r) => r.ms));
  const api = sorted(runs.map((r) => r.apiMs));
  return `${fmt(percentile(ms, 50))} | ${fmt(percentile(ms, 95))} | ${fmt(ms.at(-1)!)} | ${fmt(percentile(api, 50))}`;
}

function bundle(): string {
  return ASSETS.map((file) => {
    const body = readFileSync(file);
    return `\`${file.split('/').pop()}\` ${(body.length / 1024).toFixed(1)} KiB (${(gzipSync(body).length / 1024).toFixed(1)} KiB gzipped)`;
  }).join(', ');
}

export async function run(): Promise<{ markdown: string }> {
  const load = loadavg()[0]!;
  const w = await startConsoleWorld();
  let browser: Browser | undefined;
  try {
    await seedAudit(w.app, SEEDED_ROWS);
    browser = await launchChromium();
    const rows: string[] = [];
    for (const p of PAGES) {
      const url = `${w.gateway}${p.path}`;
      const c = await cold(browser, url, p);
      const h = await warm(browser, url, p);
      rows.push(`| ${p.label} | cold | ${RUNS} | ${cells(c)} |`, `| ${p.label} | warm | ${RUNS} | ${cells(h)} |`);
    }
    const loadAfter = loadavg()[0]!;
    const markdown = `## Console

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} (${processFlags()}), Chromium ${browser.version()} headless;
1-minute load average ${load.toFixed(1)} before, ${loadAfter.toFixed(1)} after.
Method: \`npm run bench -- console\` (\`bench/console.ts\`). A standalone Steward in the benchmark's process, with
${SEEDED_ROWS.toLocaleString('en')} audit rows written into its store first; each figure is the page's own clock, from the
navigation's start to the animation frame after the data first appears (Overview: the requests count; Decisions: the
first row of the server's first page). *Cold*: a new browser context each run; *warm*: a context that loaded the page
before. "Data request" is the median time of the page's API call (\`${PAGES.map((p) => p.api).join('`, `')}\`), from
its start to the end of its answer. Target: under 1 s. Bundle: ${bundle()}.

| Page | cache | runs | median ms | p95 ms | max ms | data request, median ms |
|---|---|---:|---:|---:|---:|---:|
${rows.join('\n')}
`;
    return { markdown };
  } finally {
    if (browser) await closeBrowser(browser);
    await w.close();
  }
}
