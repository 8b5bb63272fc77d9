import { ERROR_CATALOGUES, type Surface } from '../../api/index.js';

/**
 * An error a caller sees. The status comes from the surface's catalogue (api/errors.ts), so a code can
 * never be sent with a status the docs do not list.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly surface: Surface,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options);
    this.name = 'ApiError';
    const spec = (ERROR_CATALOGUES[surface] as Record<string, { status: number }>)[code];
    if (!spec) throw new Error(`error code ${code} is not in the ${surface} catalogue`);
    this.status = spec.status;
    this.headers = options?.headers;
  }
  readonly headers: Record<string, string> | undefined;
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

/** Fastify's own error codes, mapped to catalogue codes present in every surface. */
export function fastifyErrorCode(err: { code?: string; statusCode?: number }): { code: string; status: number } | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'INVALID_REQUEST', status: 400 };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'PAYLOAD_TOO_LARGE', status: 413 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 };
    default:
      if (err.statusCode === 400 || (err as Error).name === 'SyntaxError') return { code: 'INVALID_REQUEST', status: 400 };
      return undefined;
  }
}
