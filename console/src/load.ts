/**
 * A page's data: one load per set of inputs, each with its own AbortController, aborted when the inputs change or
 * the page goes away. Errors go to the alert region (a 401 has already sent the tab to sign-in) and leave it when a
 * later load of the same data succeeds.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, isAbort } from './api';
import { useNotices } from './notices';

export interface Loaded<T> {
  /** The last answer; kept while a reload runs, dropped when the inputs change. */
  data?: T;
  loading: boolean;
  /** When the data was last loaded. */
  at?: Date;
  reload: () => void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, inputs: readonly unknown[]): Loaded<T> {
  const notices = useNotices();
  const [state, setState] = useState<{ data?: T; at?: Date; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const ticket = useRef(0);
  const key = JSON.stringify(inputs);
  const lastKey = useRef(key);

  useEffect(() => {
    const controller = new AbortController();
    const fresh = lastKey.current !== key;
    lastKey.current = key;
    setState((s) => (fresh ? { loading: true } : { ...s, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (controller.signal.aborted) return;
        setState({ data, at: new Date(), loading: false });
        if (ticket.current) notices.dismiss(ticket.current);
        ticket.current = 0;
      },
      (err: unknown) => {
        if (controller.signal.aborted || isAbort(err)) return;
        setState((s) => ({ ...s, loading: false }));
        if (!(err instanceof ApiError && err.status === 401)) ticket.current = notices.alert(err);
      },
    );
    return () => controller.abort();
    // NB: `load` is a new closure each render; the inputs it reads are the dependencies
  }, [key, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Calls `fn` every `ms` while the tab is visible. */
export function useInterval(fn: () => void, ms: number): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}
