/**
 * Who the tab is: the answer of `GET /api/v1/whoami` for the stored key (or for none, in community mode), shown in
 * the header and read by the pages that offer actions only some roles may take. A 401, at load or from any later
 * request, sends the tab to the sign-in page, which comes back to where it was.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, isAbort, send, setUnauthorized, storedKey, storeKey } from './api';
import type { Notices } from './notices';
import { BASE, navigate } from './router';
import type { Identity } from './types';

export type Session =
  /** whoami has not answered yet. */
  | { state: 'checking' }
  | { state: 'known'; identity: Identity }
  /** whoami answered 401: the stored key (or no key) is not accepted. */
  | { state: 'none' }
  /** whoami failed otherwise (the error is in the alert region). */
  | { state: 'unknown' };

export interface SessionApi {
  session: Session;
  /** Whether the tab holds a key. */
  hasKey: boolean;
  /** Keeps a key whoami accepted and goes on to `next`. */
  signIn(key: string, identity: Identity, next: string): void;
  signOut(): void;
}

export const SIGN_IN_PATH = `${BASE}/sign-in`;
const SIGN_IN_AGAIN = 'Sign in with an API key or license key';

export const SessionContext = createContext<SessionApi>({
  session: { state: 'checking' },
  hasKey: false,
  signIn: () => {},
  signOut: () => {},
});

export const useSession = (): SessionApi => useContext(SessionContext);

export const whoami = (key: string | null, signal?: AbortSignal) => send<Identity>('/api/v1/whoami', { key, signal });

export const hasRole = (session: Session, role: string): boolean =>
  session.state === 'known' && (session.identity.roles ?? []).includes(role);

/** How approvals name the caller: `client:<id>`, `license:<org>`, `community`. */
export const principal = (identity: Identity): string => identity.principal || identity.credential;

/** The sign-in page, coming back to `next`. */
export const signInHref = (next: string): string =>
  next === BASE ? SIGN_IN_PATH : `${SIGN_IN_PATH}?${new URLSearchParams({ next })}`;

/** Where sign-in may send the tab afterwards: a page of the console, nothing else. */
export function safeNext(next: string | null): string {
  const inside = next === BASE || next?.startsWith(`${BASE}/`) || next?.startsWith(`${BASE}?`);
  if (!next || !inside || next.startsWith(SIGN_IN_PATH)) return BASE;
  const url = new URL(next, location.origin);
  return url.origin === location.origin ? url.pathname + url.search : BASE;
}

function toSignIn(): void {
  if (location.pathname !== SIGN_IN_PATH) navigate(signInHref(location.pathname + location.search), { replace: true });
}

/** The app's session: whoami at load and after sign-out, and the hand-over of every 401 to the sign-in page. */
export function useSessionState(notices: Notices): SessionApi {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const [hasKey, setHasKey] = useState(() => storedKey() !== null);
  const [checks, setChecks] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    whoami(storedKey(), controller.signal).then(
      (identity) => setSession({ state: 'known', identity }),
      (err: unknown) => {
        if (isAbort(err)) return;
        if (err instanceof ApiError && err.status === 401) {
          setSession({ state: 'none' });
          toSignIn();
          return;
        }
        setSession({ state: 'unknown' });
        notices.alert(err);
      },
    );
    return () => controller.abort();
  }, [checks, notices]);

  useEffect(
    () =>
      setUnauthorized((err) => {
        setSession({ state: 'none' });
        // NB: after the navigation, which clears the notices
        toSignIn();
        notices.alert({ code: err.code, message: SIGN_IN_AGAIN });
      }),
    [notices],
  );

  return useMemo<SessionApi>(
    () => ({
      session,
      hasKey,
      signIn: (key, identity, next) => {
        storeKey(key);
        setHasKey(true);
        setSession({ state: 'known', identity });
        navigate(next, { replace: true });
        notices.status(`Signed in as ${principal(identity)}`);
      },
      signOut: () => {
        storeKey(null);
        setHasKey(false);
        setSession({ state: 'checking' });
        setChecks((n) => n + 1);
        notices.status('Signed out');
      },
    }),
    [session, hasKey, notices],
  );
}
