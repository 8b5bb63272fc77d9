/**
 * `steward policy eval --gateway URL`: the input's `query` and `context` sent to a running gateway's
 * `POST /api/policies/test`, which evaluates the caller's organization's policies as the pre-check does and records
 * nothing. The endpoint reads no other field of the input: the rest is named back to the person, not sent.
 */
import { policyTestResponse } from '../../api/http/gateway.js';
import type { EvalDecision } from './eval-command.js';
import { PolicyCliError } from './errors.js';
import { policyInputOf } from './input.js';

/** Fields the gateway's test endpoint reads; `surface` is always its pre-check. */
const SENT = new Set(['query', 'context']);

export async function askGateway(
  baseUrl: string,
  raw: unknown,
  options: { apiKey?: string | undefined; timeoutMs: number },
): Promise<EvalDecision> {
  const { input } = policyInputOf(raw, {}, 'the input');
  const doc = raw as Record<string, unknown>;
  const ignored = Object.keys(doc).filter((k) => !SENT.has(k) && !(k === 'surface' && doc.surface === 'pre-check'));
  let url: URL;
  try {
    url = new URL('api/policies/test', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch {
    throw new PolicyCliError(`--gateway: "${baseUrl}" is not a URL`);
  }
  const body = { query: input.query, ...(doc.context === undefined ? {} : { context: doc.context }) };
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      // NB: the request's budget covers the connection too; the gateway's own deadline bounds the evaluation.
      signal: AbortSignal.timeout(Math.max(options.timeoutMs, 1000)),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new PolicyCliError(`--gateway ${url.origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  const json = parseJson(text);
  if (!res.ok) {
    const e = (json ?? {}) as { code?: unknown; error?: unknown };
    const what = [typeof e.code === 'string' ? e.code : '', typeof e.error === 'string' ? e.error : text.slice(0, 200)];
    throw new PolicyCliError(`--gateway ${url.origin} answered ${res.status}: ${what.filter(Boolean).join(': ')}`);
  }
  const answer = policyTestResponse.safeParse(json);
  if (!answer.success)
    throw new PolicyCliError(`--gateway ${url.origin}: not a /api/policies/test answer: ${text.slice(0, 200)}`);
  const a = answer.data;
  return {
    approved: a.approved,
    policies: a.triggered_policies,
    ...(a.block_reason === undefined ? {} : { blockReason: a.block_reason }),
    warnings: a.warnings ?? [],
    evaluationMs: a.evaluation_time_ms,
    source: url.origin,
    ...(ignored.length ? { ignored } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
