/**
 * The one mapping from what a route, hook or body parser throws to what its caller is answered: status, catalogue
 * code, message, details and headers. Each surface's body shape (the gateway's agent style, the orchestrator's and
 * the pool agent's envelope, OpenAI's, Anthropic's) is a renderer over it; no surface classifies errors itself.
 */
import type { FastifyError } from 'fastify';
import type { ErrorCode, Surface } from '../../api/index.js';
import { isConnectorError } from '../connectors/errors.js';
import { AuditFailedError, PolicyBlockedError } from '../governed/errors.js';
import {
  LlmAbortedError,
  LlmNotConfiguredError,
  LlmProviderError,
  LlmTimeoutError,
  LlmValidationError,
} from '../llm/errors.js';
import { ApiError, echo, fastifyErrorCode, inSurface } from './errors.js';

/** How much of a connector's (driver's) message an answer repeats. */
const CONNECTOR_MESSAGE_CHARS = 160;

/** The longest message an error body carries; longer ones (a message that repeats input) are cut. */
export const MAX_MESSAGE_CHARS = 1024;

/** What every body shape renders: a status and a code, with a message and details for people. */
export interface RenderedError {
  status: number;
  /** Steward's catalogue code (`POLICY_VIOLATION`). */
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** One error as the surface answers it. */
export interface HttpError extends RenderedError {
  code: ErrorCode;
  /** Headers of the answer: the error's own (rate limits), and an upstream 429's Retry-After where it is passed on. */
  headers?: Record<string, string>;
}

/** A surface's body shape for an error (the request id is the answer's `request_id`). */
export type ErrorBodyRenderer = (e: RenderedError, requestId: string) => Record<string, unknown>;

/** How one scope answers errors: in which catalogue, and whether upstream statuses pass through. */
export interface ErrorMapping {
  surface: Surface;
  /**
   * Answer a provider's 400, 404 and 429 with that status (and a 429 with its Retry-After), so that an SDK's own
   * exception and retry rule apply: the provider-compatible routes. Otherwise a provider failure is a 502.
   * @default false
   */
  passUpstream?: boolean;
}

/** The logger the mapping reports server faults to. */
interface ErrorLog {
  error(obj: object, msg: string): void;
}

/** Upstream statuses the provider-compatible routes pass through as they are; any other stays a 502. */
const PASSED_THROUGH: ReadonlySet<number> = new Set([400, 404, 429]);

const INTERNAL_MESSAGE = 'internal error; see the server log with this request_id';

/** Whether the error means that the client went away: there is nobody to answer. */
export function isClientClosed(err: unknown): boolean {
  return err instanceof LlmAbortedError;
}

/**
 * The answer to one error, in the mapping's surface; server faults (5xx) are logged with the error. Total: an
 * error it does not know is a 500 INTERNAL_ERROR whose message says nothing of it.
 */
export function httpErrorOf(thrown: unknown, mapping: ErrorMapping, log?: ErrorLog): HttpError {
  const err = inSurface(asApiError(thrown), mapping.surface);
  if (err instanceof ApiError) {
    if (err.status >= 500) log?.error({ err, code: err.code }, 'request failed');
    return bounded(apiErrorOf(err, mapping.passUpstream ?? false));
  }
  if ((err as FastifyError | undefined)?.validation)
    return bounded({ status: 400, code: 'INVALID_REQUEST', message: err.message });
  const mapped = err ? fastifyErrorCode(err as FastifyError, mapping.surface) : undefined;
  // NB: fastify's messages repeat input (the Content-Type, a JSON fragment): bounded like every echo.
  if (mapped) return { ...mapped, message: echo(err.message, 200) };
  log?.error({ err }, 'unhandled error');
  return { status: 500, code: 'INTERNAL_ERROR', message: INTERNAL_MESSAGE };
}

/**
 * The typed failures of the layers under the routes (the governed pipeline, the LLM layer, connectors) in the gateway's
 * catalogue; other surfaces take them from there by `inSurface`. Anything else is returned as it is.
 */
export function asApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof PolicyBlockedError)
    return new ApiError('gateway', 'POLICY_VIOLATION', err.message, err.details, { cause: err });
  if (err instanceof AuditFailedError)
    return new ApiError('gateway', 'AUDIT_FAILED', err.message, { audit_id: err.auditId }, { cause: err });
  if (err instanceof LlmValidationError)
    return new ApiError('gateway', 'INVALID_REQUEST', err.message, { field: err.field }, { cause: err });
  if (err instanceof LlmNotConfiguredError)
    return new ApiError('gateway', 'PROVIDER_NOT_CONFIGURED', err.message, undefined, { cause: err });
  if (err instanceof LlmTimeoutError)
    return new ApiError(
      'gateway',
      'PROVIDER_TIMEOUT',
      err.message,
      { provider: err.provider, timeout_ms: err.timeoutMs },
      { cause: err },
    );
  if (err instanceof LlmProviderError) {
    return new ApiError(
      'gateway',
      'PROVIDER_ERROR',
      `the LLM provider ${err.provider} failed: ${err.message}`,
      { provider: err.provider, status: err.status },
      { cause: err },
    );
  }
  if (isConnectorError(err)) {
    // NB: ConnectorError codes are gateway codes of the same name; driver messages can repeat a parameter or a
    // token of the statement, so they are bounded like every echo of input.
    const details = {
      ...(err.connector ? { connector: echo(err.connector) } : {}),
      ...(err.reason ? { reason: err.reason } : {}),
    };
    return new ApiError(
      'gateway',
      err.code,
      echo(err.message, CONNECTOR_MESSAGE_CHARS),
      Object.keys(details).length ? details : undefined,
      { cause: err },
    );
  }
  return err;
}

/** An ApiError's own status, code, details and headers; a provider's status and Retry-After where they pass. */
function apiErrorOf(err: ApiError, passUpstream: boolean): HttpError {
  const upstream = err.cause instanceof LlmProviderError ? err.cause : undefined;
  const upstreamStatus = passUpstream && err.code === 'PROVIDER_ERROR' ? upstream?.status : undefined;
  const status = upstreamStatus !== undefined && PASSED_THROUGH.has(upstreamStatus) ? upstreamStatus : err.status;
  const retryAfter =
    status === 429 && upstream?.retryAfterSec !== undefined
      ? { 'retry-after': String(upstream.retryAfterSec) }
      : undefined;
  const headers = err.headers || retryAfter ? { ...err.headers, ...retryAfter } : undefined;
  return {
    status,
    code: err.code,
    message: err.message,
    ...(err.details ? { details: err.details } : {}),
    ...(headers ? { headers } : {}),
  };
}

/** The error with its message cut to `MAX_MESSAGE_CHARS`. */
export function bounded<E extends { message: string }>(e: E): E {
  return e.message.length > MAX_MESSAGE_CHARS ? { ...e, message: echo(e.message, MAX_MESSAGE_CHARS) } : e;
}

/** An error answer: status, headers and the body in the renderer's shape. */
export interface ErrorAnswer {
  status: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

/** The answer to one error in a surface's catalogue and body shape; undefined when the client went away. */
export function errorAnswer(
  err: unknown,
  mapping: ErrorMapping,
  render: ErrorBodyRenderer,
  requestId: string,
  log?: ErrorLog,
): ErrorAnswer | undefined {
  if (isClientClosed(err)) return undefined;
  const e = httpErrorOf(err, mapping, log);
  return { status: e.status, ...(e.headers ? { headers: e.headers } : {}), body: render(e, requestId) };
}
