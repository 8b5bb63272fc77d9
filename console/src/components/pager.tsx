/**
 * Paging through the server's opaque tokens: the tokens that led to this page are a stack, kept in the
 * history entry so that Back from a detail page returns to the same page. New filters are a new entry, page one.
 */
import { useState } from 'preact/hooks';
import { remember, remembered } from '../router';

const ENTRY_KEY = 'pages';

export interface PageTokens {
  /** The token of the page shown; undefined on the first. */
  token?: string;
  /** 1 on the first page. */
  number: number;
  next(token: string): void;
  previous(): void;
}

/** The page stack of the list shown; a list with other filters is another component (keyed by them). */
export function usePageTokens(): PageTokens {
  const [stack, setStack] = useState<string[]>(() => remembered<string[]>(ENTRY_KEY) ?? []);
  const move = (next: string[]) => {
    remember(ENTRY_KEY, next);
    setStack(next);
  };
  return {
    token: stack.at(-1),
    number: stack.length + 1,
    next: (token) => move([...stack, token]),
    previous: () => move(stack.slice(0, -1)),
  };
}

/**
 * Previous and Next buttons. NB: a button that cannot act is `aria-disabled`, not `disabled`, so that the focus
 * stays on it after the last page is reached.
 */
export function Pager({ pages, nextToken, busy }: { pages: PageTokens; nextToken?: string; busy?: boolean }) {
  const canPrevious = pages.number > 1 && !busy;
  const canNext = nextToken !== undefined && !busy;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" aria-disabled={!canPrevious} onClick={() => canPrevious && pages.previous()}>
        Previous page
      </button>
      <span>Page {pages.number}</span>
      <button type="button" aria-disabled={!canNext} onClick={() => canNext && pages.next(nextToken)}>
        Next page
      </button>
    </nav>
  );
}
