import type { ConnectorType } from '../../../api/connector.js';
import { ConnectorError, isConnectorError } from '../errors.js';
import type { ConnectorOptions } from '../options.js';
import { errorText, secretsOfUrl } from '../sanitize.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  '57P01',
  '57P03',
  '08006',
  '08001',
  '08004',
]);

const UNAVAILABLE_TEXT =
  /connection (terminated|refused|is closed|closed)|connect ECONNREFUSED|Connection is closed|timeout exceeded when trying to connect|not connected|Stream isn't writeable|enableOfflineQueue/i;

/** What every kind shares: its identity, parsed options, and the secrets its errors must not show. */
export abstract class ConnectorBase {
  protected readonly secrets: string[];

  constructor(
    readonly name: string,
    readonly type: ConnectorType,
    protected readonly url: string,
    protected readonly options: ConnectorOptions,
  ) {
    this.secrets = secretsOfUrl(url);
  }

  /** Any thrown value as a ConnectorError with a sanitised message (driver text may quote the URL). */
  protected fail(e: unknown, what = 'call'): ConnectorError {
    if (isConnectorError(e)) return e;
    const code = (e as { code?: unknown })?.code;
    const text = errorText(e, this.secrets);
    const unavailable =
      (typeof code === 'string' && NETWORK_CODES.has(code)) ||
      UNAVAILABLE_TEXT.test(text) ||
      e instanceof AggregateError;
    return new ConnectorError(
      unavailable ? 'CONNECTOR_UNAVAILABLE' : 'CONNECTOR_QUERY_FAILED',
      `${this.type} ${what} failed: ${text || 'unknown error'}`,
      {
        connector: this.name,
      },
    );
  }

  protected refuseWrite(what: string): never {
    throw new ConnectorError('OPERATION_NOT_ALLOWED', `${what} changes data and the connector is read-only`, {
      connector: this.name,
      reason: 'READ_ONLY',
    });
  }
}

/** `params` as an array (positional) or refused. */
export function positional(params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  throw new ConnectorError('INVALID_PARAMS', 'params must be an array for positional placeholders ($1, $2, ...)');
}

export const sqlToolSchema = {
  type: 'object',
  properties: {
    statement: { type: 'string', description: 'SQL with $1, $2, ... placeholders' },
    params: { type: 'array', description: 'values of the placeholders, in order' },
  },
  required: ['statement'],
} as const;
