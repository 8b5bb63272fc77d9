/**
 * Every failure of a connector call a user can see. The gateway maps codes to HTTP statuses; callers
 * branch on `code`, never on message text. Messages never carry connection URLs (see sanitize.ts).
 */
export const CONNECTOR_ERROR_CODES = {
  /** No connector of that name is loaded. */
  CONNECTOR_NOT_FOUND: 'no connector of that name',
  /** The operation or tool is not in spec.allowedOperations, or the connector is read-only. */
  OPERATION_NOT_ALLOWED: 'operation not allowed on this connector',
  /** The SQL guard refused the statement; `reason` says why. */
  SQL_REFUSED: 'statement refused by the SQL guard',
  /** The call took longer than its timeout; the server-side query was cancelled where possible. */
  CONNECTOR_TIMEOUT: 'connector call timed out',
  /** The system behind the connector cannot be reached or failed. */
  CONNECTOR_UNAVAILABLE: 'connector unavailable',
  /** The statement or call itself failed on the server (syntax, missing table, tool error). */
  CONNECTOR_QUERY_FAILED: 'connector call failed',
  /** An answer larger than the byte cap that cannot be truncated (an HTTP body). */
  RESULT_TOO_LARGE: 'result larger than the byte cap',
  /**
   * The SSRF guard refused a destination; `reason`: OTHER_ORIGIN, OUTSIDE_BASE_PATH, PRIVATE_ADDRESS,
   * REDIRECT_OFF_ORIGIN, REDIRECT_OUTSIDE_BASE_PATH, ENCODED_PATH.
   */
  SSRF_REFUSED: 'destination refused by the SSRF guard',
  /** The Connector document or its options are invalid, or its connection URL is missing. */
  CONNECTOR_MISCONFIGURED: 'connector misconfigured',
  /** Parameters do not fit the statement or the tool. */
  INVALID_PARAMS: 'invalid parameters',
  /** An `mcp` connector's tool changed since its definition was approved (pins/pins.ts); `reason`: CHANGED. */
  TOOL_DEFINITION_CHANGED: 'tool definition changed since it was approved',
  /** An `mcp` connector's tool is held until approved; `reason`: NEW_TOOL, SUSPECT_DESCRIPTION. */
  TOOL_NOT_APPROVED: 'tool not approved',
  /**
   * An `a2a` connector's Agent Card is not trusted: `reason` NO_SIGNATURE, UNKNOWN_KEY, BAD_SIGNATURE (it does not
   * verify against the trusted keys), UNREADABLE (not an A2A 1.0 card), KEYS_UNAVAILABLE (the trusted key set could
   * not be read).
   */
  A2A_CARD_UNVERIFIED: "the remote agent's card is not trusted",
} as const;

export type ConnectorErrorCode = keyof typeof CONNECTOR_ERROR_CODES;

export interface ConnectorErrorContext {
  connector?: string;
  /** Machine-readable detail, e.g. the SQL guard's reason (`STACKED_QUERIES`, `DENIED_FUNCTION`, ...). */
  reason?: string;
  cause?: unknown;
}

export class ConnectorError extends Error {
  readonly connector?: string;
  readonly reason?: string;

  constructor(
    readonly code: ConnectorErrorCode,
    message: string = CONNECTOR_ERROR_CODES[code],
    context: ConnectorErrorContext = {},
  ) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = 'ConnectorError';
    this.connector = context.connector;
    this.reason = context.reason;
  }

  /** The JSON the gateway answers with (never the cause: it may hold driver text). */
  toJSON(): { code: ConnectorErrorCode; message: string; reason?: string; connector?: string } {
    return { code: this.code, message: this.message, reason: this.reason, connector: this.connector };
  }
}

export const isConnectorError = (e: unknown): e is ConnectorError => e instanceof ConnectorError;
