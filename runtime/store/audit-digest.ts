/**
 * The digest that links an audit row into its organization's chain (migration 9, docs/audit-evidence.md): SHA-256
 * of the RFC 8785 canonical JSON of the row's columns as the database holds them. The writer computes it before the
 * insert; the verifier recomputes it from the stored row, so any change to a column shows.
 */
import { canonicalDigest } from '../audit/canonical.js';
import { storable } from './group-insert.js';

/** The chained columns of an audit row, as stored (`created_at` as ISO-8601 with milliseconds). */
export interface ChainedRow {
  id: string;
  organization_id: string;
  client_id: string;
  context_id: string | null;
  user_token: string | null;
  provider: string | null;
  model: string | null;
  prompt: string | null;
  response: string | null;
  latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  metadata: Record<string, unknown>;
  created_at: string;
}

/**
 * The row's digest. NB: taken of the row as it will be stored — strings made storable (a lone surrogate or NUL
 * becomes U+FFFD, as the insert does) and JSON values as JSON (an `undefined` in an array becomes null) — so that
 * the verifier, reading the row back, computes the same bytes.
 */
export function rowDigest(row: ChainedRow): Buffer {
  return canonicalDigest(JSON.parse(JSON.stringify(row, storable)) as unknown);
}
