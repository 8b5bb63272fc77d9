/**
 * Client-side routing under /console with the History API: every page and its query string is a URL of its own,
 * so a view can be bookmarked and reloaded. Each history entry records the page it was reached from (`from`), and a
 * page may keep small state in its entry (the Decisions pager) so Back returns to the same view.
 */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export interface Route {
  /** The path without a trailing slash, e.g. `/console/decisions/abc`. */
  path: string;
  /** The query string with its `?`, or empty. */
  search: string;
  query: URLSearchParams;
}

interface EntryState {
  from?: string;
  [key: string]: unknown;
}

const listeners = new Set<() => void>();

function current(): Route {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  return { path, search: location.search, query: new URLSearchParams(location.search) };
}

const entryState = (): EntryState => (history.state as EntryState | null) ?? {};

/** Goes to an address of the console: a new history entry, or the current one replaced. */
export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  const here = location.pathname + location.search;
  if (opts.replace) history.replaceState({ from: entryState().from }, '', href);
  else if (href !== here) history.pushState({ from: here }, '', href);
  else return;
  for (const listener of listeners) listener();
}

/** The current route; re-renders on navigate() and on Back/Forward. */
export function useRoute(onChange?: () => void): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => {
      setRoute(current());
      onChange?.();
    };
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, [onChange]);
  return route;
}

/** Where the current entry was reached from, if it was reached inside the console. */
export const cameFrom = (): string | undefined => entryState().from;

/** A value kept in the current history entry (Back and reload bring it back). */
export const remembered = <T>(key: string): T | undefined => entryState()[key] as T | undefined;

export function remember(key: string, value: unknown): void {
  history.replaceState({ ...entryState(), [key]: value }, '');
}

const isConsolePath = (path: string) =>
  (path === BASE || path.startsWith(`${BASE}/`)) && !path.startsWith(`${BASE}/assets/`);

/** Turns clicks on the console's own links into navigate() calls; other links behave as links. */
export function interceptLinks(root: Document): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest?.('a');
    if (!a || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
    // NB: in-page anchors (the skip link) keep the browser's own focus and scroll
    if ((a.getAttribute('href') ?? '').startsWith('#')) return;
    if (a.origin !== location.origin || !isConsolePath(a.pathname)) return;
    event.preventDefault();
    navigate(a.pathname + a.search);
  });
}
