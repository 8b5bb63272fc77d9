import { ConnectorError } from '../errors.js';

/**
 * Why the SQL guard refused a statement: the `reason` of a `SQL_REFUSED` ConnectorError. docs/connectors.md
 * lists the same reasons (refusal.test.ts keeps the two equal).
 */
export const SQL_REFUSALS = [
  'EMPTY',
  'TOO_LONG',
  'TOO_COMPLEX',
  'UNTERMINATED',
  'EXECUTABLE_COMMENT',
  'STACKED_QUERIES',
  'PARSE_ERROR',
  'NOT_READ_ONLY',
  'DATA_MODIFYING',
  'SELECT_INTO',
  'LOCKING_READ',
  'DENIED_FUNCTION',
  'FUNCTION_NOT_ALLOWED',
  'SERVER_VARIABLE',
  'CATALOG_CAST',
  'TABLE_NOT_ALLOWED',
] as const;

export type SqlRefusal = (typeof SQL_REFUSALS)[number];

export const refuse = (reason: SqlRefusal, message: string): never => {
  throw new ConnectorError('SQL_REFUSED', `statement refused: ${message}`, { reason });
};
