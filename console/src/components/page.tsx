/** A page's heading and document title, and the small pieces every page writes with. */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { formatTime, NONE } from '../format';

export function Page({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Steward console`;
  }, [title]);
  return (
    <>
      <h1>{title}</h1>
      {children}
    </>
  );
}

/** An instant, readable and machine-readable. */
export const Time = ({ iso }: { iso?: string }) => (iso ? <time dateTime={iso}>{formatTime(iso)}</time> : <>{NONE}</>);

/** When a list was loaded, and a button to load it again (`Refresh`, or `Refresh <what>` beside another). */
export function Freshness(props: { at?: Date; loading: boolean; onRefresh: () => void; what?: string }) {
  const { at, loading, onRefresh, what } = props;
  return (
    <p class="freshness">
      <button type="button" onClick={onRefresh} aria-busy={loading ? 'true' : undefined}>
        {what ? `Refresh ${what}` : 'Refresh'}
      </button>{' '}
      {loading ? 'Loading…' : at ? `Updated ${at.toLocaleTimeString()}` : ''}
    </p>
  );
}
