/**
 * The layout every page shares — skip link, header, navigation, the live regions, the page — and the table of
 * routes. The app holds the session and the notices; pages read both from their contexts.
 */
import type { ComponentType } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { Header, Nav } from './components/header';
import { NoticeContext, NoticeRegions, useNoticeState } from './notices';
import { Agents } from './pages/agents';
import { Budgets } from './pages/budgets';
import { Connectors } from './pages/connectors';
import { DecisionDetail } from './pages/decision-detail';
import { Decisions } from './pages/decisions';
import { NotFound } from './pages/not-found';
import { Overview } from './pages/overview';
import { Policies } from './pages/policies';
import { SignIn } from './pages/sign-in';
import { BASE, useRoute, type Route } from './router';
import { SessionContext, SIGN_IN_PATH, useSessionState } from './session';

export interface PageProps {
  route: Route;
  /** The part of the path after the page's own, e.g. an audit entry's id. */
  param?: string;
}

const PAGES: Record<string, ComponentType<PageProps>> = {
  '': Overview,
  decisions: Decisions,
  policies: Policies,
  budgets: Budgets,
  agents: Agents,
  connectors: Connectors,
};

/** The page of a path and its parameter: `/console/decisions/<id>` is the detail page of one entry. */
function pageOf(path: string): { Page: ComponentType<PageProps>; param?: string } {
  if (path === SIGN_IN_PATH) return { Page: SignIn };
  if (path !== BASE && !path.startsWith(`${BASE}/`)) return { Page: NotFound };
  const [name = '', param, ...rest] = path.slice(BASE.length + 1).split('/');
  if (name === 'decisions' && param && rest.length === 0) return { Page: DecisionDetail, param };
  const Page = param === undefined && Object.hasOwn(PAGES, name) ? PAGES[name] : undefined;
  return { Page: Page ?? NotFound };
}

export function App() {
  const { notices, problem, status, clear } = useNoticeState();
  const route = useRoute(clear);
  const session = useSessionState(notices);

  // NB: a new page moves the focus to its content, as a page load would; a new query string keeps it in place
  const main = useRef<HTMLElement>(null);
  const shownPath = useRef(route.path);
  useEffect(() => {
    if (route.path === shownPath.current) return;
    shownPath.current = route.path;
    main.current?.focus();
    scrollTo(0, 0);
  }, [route.path]);

  const { Page, param } = pageOf(route.path);

  return (
    <SessionContext.Provider value={session}>
      <NoticeContext.Provider value={notices}>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <Header route={route} />
        <Nav route={route} />
        <main id="content" tabIndex={-1} ref={main}>
          <NoticeRegions problem={problem} status={status} />
          {/* NB: a page asks for its data at once, beside whoami: both carry the stored key, and a 401 from either
              takes the tab to sign-in (one round trip less before the first render) */}
          <Page route={route} param={param} />
        </main>
      </NoticeContext.Provider>
    </SessionContext.Provider>
  );
}
