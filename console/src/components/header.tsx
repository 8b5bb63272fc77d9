/** The header (who the tab is; sign in or out) and the console's navigation, with the current page marked. */
import type { Route } from '../router';
import { BASE } from '../router';
import { principal, SIGN_IN_PATH, signInHref, useSession, type Session } from '../session';

const NAV = [
  { href: BASE, label: 'Overview' },
  { href: `${BASE}/decisions`, label: 'Decisions' },
  { href: `${BASE}/policies`, label: 'Policies' },
  { href: `${BASE}/budgets`, label: 'Budgets' },
  { href: `${BASE}/agents`, label: 'Agents' },
  { href: `${BASE}/connectors`, label: 'Connectors' },
] as const;

function Who({ session }: { session: Session }) {
  if (session.state === 'checking') return <span class="who">Checking credentials…</span>;
  if (session.state !== 'known') {
    return <span class="who">{session.state === 'none' ? 'Not signed in' : 'Identity unknown'}</span>;
  }
  const { identity } = session;
  const roles = identity.roles ?? [];
  return (
    <span class="who">
      Signed in as <strong data-field="principal">{principal(identity)}</strong>
      {identity.organization_id && <> · organization {identity.organization_id}</>}
      {identity.tenant_id && (
        <>
          {' '}
          · tenant {identity.tenant_id}
          {identity.tenant_bound && ' (bound)'}
        </>
      )}
      {identity.tier && <> · tier {identity.tier}</>}
      {roles.length > 0 && <> · roles: {roles.join(', ')}</>}
    </span>
  );
}

export function Header({ route }: { route: Route }) {
  const { session, hasKey, signOut } = useSession();
  const here = route.path + route.search;
  return (
    <header class="top">
      <a class="brand" href={BASE}>
        Steward console
      </a>
      <Who session={session} />
      {hasKey ? (
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      ) : (
        <a href={route.path === SIGN_IN_PATH ? here : signInHref(here)}>Sign in</a>
      )}
    </header>
  );
}

export function Nav({ route }: { route: Route }) {
  // NB: a detail page marks its section (`true`), not the page (`page`): its own URL is not in the list
  const section = NAV.findLast((n) => route.path === n.href || route.path.startsWith(`${n.href}/`));
  return (
    <nav aria-label="Console" class="sections">
      <ul>
        {NAV.map((n) => (
          <li key={n.href}>
            <a href={n.href} aria-current={n.href === route.path ? 'page' : n === section ? 'true' : undefined}>
              {n.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
