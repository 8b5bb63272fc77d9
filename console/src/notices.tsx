/**
 * The two live regions of the layout: errors (`role="alert"`, with the API's code and message) and the results of
 * actions (`role="status"`). Both are cleared when the page changes.
 */
import { createContext } from 'preact';
import { useCallback, useContext, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Problem {
  code?: string;
  message: string;
}

export interface Notices {
  /** Shows an error; returns a ticket that dismiss() takes, so a loader clears only what it showed. */
  alert(error: unknown): number;
  dismiss(ticket: number): void;
  status(message: string): void;
}

export const NoticeContext = createContext<Notices>({ alert: () => 0, dismiss: () => {}, status: () => {} });

export const useNotices = (): Notices => useContext(NoticeContext);

/** What an error says: an ApiError's code and message, anything else's message. */
export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  if (typeof error === 'object' && error && 'message' in error && typeof error.message === 'string') {
    return { code: 'code' in error && typeof error.code === 'string' ? error.code : undefined, message: error.message };
  }
  return { message: String(error) };
}

export interface NoticeState {
  notices: Notices;
  problem?: Problem;
  status?: string;
  /** Empties both regions (a new page). */
  clear: () => void;
}

/** The app's notices: what the two regions show, and the stable `Notices` the pages get. */
export function useNoticeState(): NoticeState {
  const [problem, setProblem] = useState<{ problem: Problem; ticket: number }>();
  const [status, setStatus] = useState<string>();
  const tickets = useRef(0);
  const clear = useCallback(() => {
    setProblem(undefined);
    setStatus(undefined);
  }, []);
  const notices = useMemo<Notices>(
    () => ({
      alert: (error) => {
        const ticket = ++tickets.current;
        setProblem({ problem: problemOf(error), ticket });
        return ticket;
      },
      dismiss: (ticket) => setProblem((p) => (p?.ticket === ticket ? undefined : p)),
      status: setStatus,
    }),
    [],
  );
  return { notices, problem: problem?.problem, status, clear };
}

export function NoticeRegions({ problem, status }: { problem?: Problem; status?: string }) {
  return (
    <div class="notices">
      <div role="alert" class="alert">
        {problem && (
          <p>
            {problem.code && <code class="code">{problem.code}</code>} {problem.message}
          </p>
        )}
      </div>
      <div role="status" class="status">
        {status && <p>{status}</p>}
      </div>
    </div>
  );
}
