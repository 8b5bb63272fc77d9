/**
 * Sign-in: a key is accepted when whoami names a credential for it; it is then kept in the tab's session storage
 * and sent with every request. Nothing is stored when the gateway refuses it.
 */
import { useState } from 'preact/hooks';
import type { PageProps } from '../app';
import { Field } from '../components/field';
import { Page } from '../components/page';
import { useNotices } from '../notices';
import { safeNext, useSession, whoami } from '../session';

export function SignIn({ route }: PageProps) {
  const { signIn } = useSession();
  const notices = useNotices();
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const next = safeNext(route.query.get('next'));

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = key.trim();
    if (busy || !candidate) return;
    setBusy(true);
    try {
      const identity = await whoami(candidate);
      // NB: in community mode the gateway answers a key it does not know as no credential at all
      if (identity.credential === 'community') {
        notices.alert({ message: 'The gateway does not know this key; it answered as community mode (no key).' });
        return;
      }
      setKey('');
      signIn(candidate, identity, next);
    } catch (err) {
      notices.alert(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Sign in">
      <p>
        Sign in with an API key (one with the <code>approver</code> role to answer approvals) or the organization's
        license key. The key stays in this tab only and is sent to this gateway alone.
      </p>
      <form onSubmit={submit} class="sign-in">
        <Field id="key" label="API key or license key">
          <input
            id="key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" aria-busy={busy ? 'true' : undefined}>
          Sign in
        </button>
      </form>
    </Page>
  );
}
