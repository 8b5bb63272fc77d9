/**
 * Typed failures of an LLM call. Callers branch on the class (or `code`), never on message text.
 * Gateway mapping: LlmValidationError → INVALID_REQUEST (400), LlmProviderError → PROVIDER_ERROR (502),
 * LlmTimeoutError → PROVIDER_TIMEOUT (504), LlmNotConfiguredError → PROVIDER_NOT_CONFIGURED (503).
 */
export abstract class LlmError extends Error {
  abstract readonly code: string;
}

/** A request field is missing, of the wrong type or out of range. Nothing was sent. */
export class LlmValidationError extends LlmError {
  readonly code = 'INVALID_REQUEST';
  constructor(
    /** The request field at fault, for example `temperature` or `messages[2].role`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'LlmValidationError';
  }
}

/** What went wrong at the provider, from its HTTP status or SDK error. */
export type LlmProviderErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'OVERLOADED'
  | 'SERVER_ERROR'
  | 'CONNECTION'
  | 'INVALID_RESPONSE'
  | 'UNKNOWN';

const RETRYABLE: ReadonlySet<LlmProviderErrorCode> = new Set([
  'RATE_LIMITED',
  'OVERLOADED',
  'SERVER_ERROR',
  'CONNECTION',
]);

/** The provider answered with an error, could not be reached, or answered with something unusable. */
export class LlmProviderError extends LlmError {
  readonly retryable: boolean;
  constructor(
    readonly provider: string,
    readonly code: LlmProviderErrorCode,
    message: string,
    options: {
      /** HTTP status of the provider's answer, when there was one. */
      status?: number;
      /** Seconds the provider asked us to wait (Retry-After), when it said. */
      retryAfterSec?: number;
      cause?: unknown;
    } = {},
  ) {
    super(`${provider}: ${message}`, { cause: options.cause });
    this.name = 'LlmProviderError';
    this.status = options.status;
    this.retryAfterSec = options.retryAfterSec;
    this.retryable = RETRYABLE.has(code);
  }
  readonly status: number | undefined;
  readonly retryAfterSec: number | undefined;
}

/** The call did not finish within its deadline; the request to the provider was aborted. */
export class LlmTimeoutError extends LlmError {
  readonly code = 'TIMEOUT';
  constructor(
    readonly provider: string,
    readonly timeoutMs: number,
    options: { cause?: unknown } = {},
  ) {
    super(`${provider}: no answer within ${timeoutMs} ms`, options);
    this.name = 'LlmTimeoutError';
  }
}

/** The caller's signal aborted the call (for example the client went away). */
export class LlmAbortedError extends LlmError {
  readonly code = 'ABORTED';
  constructor(
    readonly provider: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${provider}: call aborted by the caller`, options);
    this.name = 'LlmAbortedError';
  }
}

/** No provider of that name is configured (or none at all). */
export class LlmNotConfiguredError extends LlmError {
  readonly code = 'PROVIDER_NOT_CONFIGURED';
  constructor(
    /** The name asked for; undefined when the default was asked for and there is none. */
    readonly requested: string | undefined,
    readonly configured: readonly string[],
  ) {
    super(
      requested === undefined
        ? 'no LLM provider is configured'
        : `LLM provider "${requested}" is not configured (configured: ${configured.length ? configured.join(', ') : 'none'})`,
    );
    this.name = 'LlmNotConfiguredError';
  }
}

/** Maps an HTTP status from a provider to our code. */
export function codeForStatus(status: number): LlmProviderErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RATE_LIMITED';
  // NB: Anthropic signals overload with 529; 503 means the same elsewhere.
  if (status === 529 || status === 503) return 'OVERLOADED';
  if (status >= 500) return 'SERVER_ERROR';
  if (status >= 400) return 'BAD_REQUEST';
  return 'UNKNOWN';
}

/** Parses a Retry-After header (seconds or an HTTP date) into whole seconds, or undefined. */
export function parseRetryAfterSec(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
