/**
 * Driving the governance console's pages in a browser the way a person does (issue 40): its URLs, opening one and
 * waiting until it has rendered, signing in. Shared by the browser tests, the screenshots and the benchmark, so the
 * three agree on what "the page is there" means. Every wait has the page's deadline.
 */
import type { Page } from 'playwright-core';

/** The console's pages: URL below the gateway, and the name of its nav link and <h1>. */
export const CONSOLE_PAGES = [
  { path: '/console', name: 'Overview', file: 'overview' },
  { path: '/console/decisions', name: 'Decisions', file: 'decisions' },
  { path: '/console/policies', name: 'Policies', file: 'policies' },
  { path: '/console/budgets', name: 'Budgets', file: 'budgets' },
  { path: '/console/agents', name: 'Agents', file: 'agents' },
  { path: '/console/connectors', name: 'Connectors', file: 'connectors' },
] as const;

/** The page's heading: the console has rendered its frame. */
export const HEADING = 'main#content h1';

/** Opens `gateway + path` and waits for the page's <h1>; answers the document's response. */
export async function openConsolePage(page: Page, gateway: string, path: string) {
  const res = await page.goto(`${gateway}${path}`);
  await page.locator(HEADING).waitFor();
  return res;
}

/** Signs in on `/console/sign-in` with an API key or license key, and waits until the page has left sign-in. */
export async function signIn(page: Page, gateway: string, key: string): Promise<void> {
  await page.goto(`${gateway}/console/sign-in`);
  await page.getByLabel('API key or license key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.endsWith('/sign-in'));
}

/** Waits until the Overview shows a count in `dd[data-metric=<metric>]` (requests, blocks, ...), and answers it. */
export async function countShown(page: Page, metric: string): Promise<number> {
  const dd = page.locator(`dd[data-metric="${metric}"]`);
  await dd.filter({ hasText: /\d/ }).waitFor();
  const digits = (await dd.innerText()).replace(/[^\d]/g, '');
  return Number(digits);
}
