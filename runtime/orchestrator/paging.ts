import { ApiError } from '../http/errors.js';

export interface Page {
  page: number;
  pageSize: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `page` (1-based, default 1) and `page_size` (default 50, at most 200) of a query string; 400 when malformed. */
export function pageOf(query: Record<string, unknown>): Page {
  const read = (key: string, fallback: number, max: number) => {
    const raw = query[key];
    if (raw === undefined || raw === '') return fallback;
    const n = typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new ApiError('plan', 'INVALID_REQUEST', `${key} must be an integer from 1 to ${max}`, {
        fields: [{ field: key, message: `an integer from 1 to ${max}` }],
      });
    }
    return n;
  };
  return { page: read('page', 1, 1_000_000), pageSize: read('page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
}

export function slice<T>(items: readonly T[], { page, pageSize }: Page): T[] {
  return items.slice((page - 1) * pageSize, page * pageSize);
}

/** A query-string parameter as one string (the first when repeated), or undefined. */
export function queryText(query: Record<string, unknown>, key: string): string | undefined {
  const v = query[key];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s !== '' ? s : undefined;
}
