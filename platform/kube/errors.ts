/**
 * A failed Kubernetes API call: the HTTP code and the Status body's reason, so callers branch on neither text nor
 * class. Code 0 means no answer came; its reason says why: `Timeout` (the call's deadline), `ConnectionFailed`, or
 * `Aborted` (the caller's signal; not a failure of the server, see `isAborted`).
 */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    /** Seconds the server asked us to wait (429, some 5xx). */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KubeApiError';
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof KubeApiError && e.code === 404;
export const isConflict = (e: unknown): boolean => e instanceof KubeApiError && e.code === 409;
export const isAlreadyExists = (e: unknown): boolean =>
  e instanceof KubeApiError && e.code === 409 && e.reason === 'AlreadyExists';
/** 410: the resourceVersion asked for is older than the server keeps (a compacted history). */
export const isGone = (e: unknown): boolean => e instanceof KubeApiError && e.code === 410;
/** The caller's signal cancelled the call (e.g. a reconcile whose leadership term ended): nothing to report or retry. */
export const isAborted = (e: unknown): boolean => e instanceof KubeApiError && e.code === 0 && e.reason === 'Aborted';
