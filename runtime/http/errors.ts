import { ERROR_CATALOGUES, type ErrorCode, type Surface, type SurfaceErrorCode } from '../../api/index.js';

/**
 * An error a caller sees. The code is one of the surface's catalogue (api/errors.ts), checked by `tsc`
 * (`new ApiError('gateway', 'POLICY_VIOLATOIN', …)` does not compile), and the status comes from that
 * catalogue, so a code can never be sent with a status the docs do not list.
 */
export class ApiError<S extends Surface = Surface> extends Error {
  readonly status: number;
  readonly surface: Surface;
  readonly code: ErrorCode;
  readonly headers: Record<string, string> | undefined;
  constructor(
    surface: S,
    code: SurfaceErrorCode<S>,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options);
    this.name = 'ApiError';
    // NB: checked at run time too: a code computed from another surface's (inSurface) or cast from a string.
    const spec = (ERROR_CATALOGUES[surface] as Record<string, { status: number }>)[code];
    if (!spec) throw new Error(`error code ${code} is not in the ${surface} catalogue`);
    this.surface = surface;
    this.code = code as ErrorCode;
    this.status = spec.status;
    this.headers = options?.headers;
  }
}

/** Whether `code` is in the surface's catalogue. */
export function inCatalogue<S extends Surface>(surface: S, code: string): code is SurfaceErrorCode<S> {
  return Object.hasOwn(ERROR_CATALOGUES[surface], code);
}

/** The surface's code for a status its catalogue gives another code (the first code of that status). */
function codeOfStatus<S extends Surface>(surface: S, status: number): SurfaceErrorCode<S> {
  const catalogue = ERROR_CATALOGUES[surface] as Record<string, { status: number }>;
  const code =
    Object.keys(catalogue).find((c) => catalogue[c]!.status === status) ??
    (status < 500 ? 'INVALID_REQUEST' : 'INTERNAL_ERROR');
  return code as SurfaceErrorCode<S>;
}

/**
 * The same refusal in a surface's catalogue (the gateway's LICENSE_VALIDATION_FAILED is the plan surface's
 * UNAUTHORIZED): a code the surface does not list becomes its code of the same status, and the original code
 * stays in `details.reason_code`. Anything but an ApiError of another surface is returned as it is.
 */
export function inSurface<S extends Surface>(err: unknown, surface: S): Error {
  if (!(err instanceof ApiError) || err.surface === surface) return err as Error;
  const own: string = err.code;
  const code = inCatalogue(surface, own) ? own : codeOfStatus(surface, err.status);
  const details = err.code === code ? err.details : { ...err.details, reason_code: err.code };
  return new ApiError(surface, code, err.message, details, { cause: err, headers: err.headers });
}

/** How much of a caller's input an error message repeats. */
export const ECHO_MAX_CHARS = 64;

/**
 * A piece of the caller's input, as an error message may repeat it: at most `ECHO_MAX_CHARS` characters (the
 * rest is counted, not sent), so that an error never amplifies what it was sent.
 */
export function echo(input: string, max = ECHO_MAX_CHARS): string {
  if (input.length <= max) return input;
  return `${input.slice(0, max)}… (${input.length - max} more characters)`;
}

/**
 * fastify's errors of reading a body as JSON (invalid, empty, shorter or longer than its Content-Length): the
 * surface's INVALID_JSON where its catalogue has one, else INVALID_REQUEST.
 */
const UNREADABLE_JSON: ReadonlySet<string> = new Set([
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
]);

/** fastify's own errors (by their `code`, or a 400 `statusCode`), as catalogue codes every surface has (INVALID_JSON where it has it). */
export function fastifyErrorCode(
  err: { code?: string; statusCode?: number },
  surface: Surface,
): { code: SurfaceErrorCode<Surface> | 'INVALID_JSON'; status: number } | undefined {
  if (err.code !== undefined && UNREADABLE_JSON.has(err.code))
    return { code: inCatalogue(surface, 'INVALID_JSON') ? 'INVALID_JSON' : 'INVALID_REQUEST', status: 400 };
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'PAYLOAD_TOO_LARGE', status: 413 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 };
    default:
      // NB: a request stream's error (the client reset it mid-body) comes with statusCode 400 and no code.
      if (err.statusCode === 400 || err instanceof SyntaxError) return { code: 'INVALID_REQUEST', status: 400 };
      return undefined;
  }
}
