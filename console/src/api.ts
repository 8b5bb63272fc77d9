/**
 * The one way the console talks to the gateway: same-origin relative paths, the signed-in key as a bearer token,
 * no cookies. A failed answer becomes an ApiError with the code and message of its JSON body, whichever of the
 * gateway's two error shapes it has. A 401 from `api()` also hands the tab to the sign-in page (setUnauthorized).
 */
import type { ErrorBody } from './types';

const KEY_ITEM = 'steward.key';

/** The key the tab signed in with (session storage: gone when the tab closes), or null. */
export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_ITEM);
  } catch {
    // NB: storage can be disabled; the console then works in community mode only
    return null;
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(KEY_ITEM, key);
    else sessionStorage.removeItem(KEY_ITEM);
  } catch {
    // nothing to keep it in; whoami will answer as if no key was given
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  signal?: AbortSignal;
  method?: 'GET' | 'POST';
  /** Sent as JSON. */
  body?: unknown;
  /** The key to send instead of the stored one (null: none). */
  key?: string | null;
}

let unauthorized: (error: ApiError) => void = () => {};

/** What to do when the API answers 401: the app sends the tab to the sign-in page. */
export function setUnauthorized(handler: (error: ApiError) => void): void {
  unauthorized = handler;
}

export const isAbort = (err: unknown): boolean => err instanceof DOMException && err.name === 'AbortError';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function errorOf(res: Response, body: ErrorBody | undefined): ApiError {
  const inner = typeof body?.error === 'object' && body.error ? body.error : undefined;
  const code = text(inner?.code) ?? text(body?.code) ?? `HTTP_${res.status}`;
  const message =
    text(inner?.message) ?? text(body?.message) ?? text(body?.error) ?? (res.statusText || `status ${res.status}`);
  return new ApiError(res.status, code, message);
}

/** One request, without the 401 hand-over: for sign-in and whoami, which answer a 401 themselves. */
export async function send<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const key = opts.key === undefined ? storedKey() : opts.key;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'omit',
      cache: 'no-store',
      signal: opts.signal,
    });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiError(0, 'NETWORK_ERROR', `the gateway did not answer (${(err as Error).message})`);
  }
  const raw = await res.text();
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) throw errorOf(res, body as ErrorBody | undefined);
  if (body === undefined) throw new ApiError(res.status, 'INVALID_RESPONSE', `${path} did not answer JSON`);
  return body as T;
}

/** A request of a page: as send(), and a 401 sends the tab to the sign-in page before the error is thrown. */
export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  try {
    return await send<T>(path, opts);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) unauthorized(err);
    throw err;
  }
}

/** `path?query`, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
