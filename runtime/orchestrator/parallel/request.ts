/**
 * `POST /orchestrator/parallel` bodies: the shape (api/http/orchestrator.ts), the size limits, and every query's
 * policy compiled before any query runs. Every refusal is a 400 INVALID_REQUEST whose details name the query
 * (`query_index`), the `field` and the `reason`.
 */
import type { z } from 'zod';
import {
  PARALLEL_MAX_DISTINCT_POLICY_BYTES,
  PARALLEL_MAX_POLICY_BYTES,
  parallelRequest,
} from '../../../api/http/orchestrator.js';
import type { PolicyCache } from '../../agent/policy-cache.js';
import { ApiError, echo } from '../../http/errors.js';

export type ParallelRequest = z.infer<typeof parallelRequest>;
export type ParallelQuery = ParallelRequest['queries'][number];

const SURFACE = 'parallel' as const;

function invalid(message: string, details: { query_index?: number; field: string; reason: string }): ApiError {
  return new ApiError(SURFACE, 'INVALID_REQUEST', message, details);
}

/**
 * The request, checked and with the reference's defaults filled in; throws the 400 for the first problem.
 * Policies compile through `policies` (shared with in-process agents, so a text compiles once per process).
 */
export function parseParallelRequest(body: unknown, policies: PolicyCache): ParallelRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the body must be a JSON object with a `queries` array', {
      field: '(body)',
      reason: 'not an object',
    });
  }
  const parsed = parallelRequest.safeParse(body);
  if (!parsed.success) throw shapeError(parsed.error.issues[0]!);
  const request = parsed.data;
  checkPolicySizes(request.queries);
  for (const [index, q] of request.queries.entries()) {
    const entry = policies.get(q.policy);
    if (!entry.ok) {
      throw invalid(`queries[${index}].policy does not compile: ${echo(entry.message, 300)}`, {
        query_index: index,
        field: 'policy',
        reason: echo(entry.message, 1000),
        ...(entry.line !== undefined ? { line: entry.line, column: entry.column } : {}),
      });
    }
  }
  return request;
}

/** Per policy, and the distinct texts together: compiling runs on the event loop, so its input is bounded. */
function checkPolicySizes(queries: readonly ParallelQuery[]): void {
  const seen = new Set<string>();
  let distinct = 0;
  for (const [index, q] of queries.entries()) {
    const bytes = Buffer.byteLength(q.policy, 'utf8');
    if (bytes > PARALLEL_MAX_POLICY_BYTES) {
      throw invalid(`queries[${index}].policy is ${bytes} bytes; the limit is ${PARALLEL_MAX_POLICY_BYTES}`, {
        query_index: index,
        field: 'policy',
        reason: `larger than ${PARALLEL_MAX_POLICY_BYTES} bytes`,
      });
    }
    if (seen.has(q.policy)) continue;
    seen.add(q.policy);
    distinct += bytes;
    if (distinct > PARALLEL_MAX_DISTINCT_POLICY_BYTES) {
      throw invalid(
        `the distinct policies of the request exceed ${PARALLEL_MAX_DISTINCT_POLICY_BYTES} bytes at queries[${index}]; send one policy for many queries, or fewer policies`,
        {
          query_index: index,
          field: 'policy',
          reason: `distinct policy texts larger than ${PARALLEL_MAX_DISTINCT_POLICY_BYTES} bytes together`,
        },
      );
    }
  }
}

/** zod's first issue as the 400: `queries.7.llm.temperature` → query_index 7, field `llm.temperature`. */
function shapeError(issue: z.core.$ZodIssue): ApiError {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? p.toString() : p));
  const reason = issue.message;
  if (path[0] === 'queries' && typeof path[1] === 'number') {
    const field = path.slice(2).join('.') || '(query)';
    return invalid(`queries[${path[1]}].${field}: ${reason}`, { query_index: path[1], field, reason });
  }
  const field = path.map(String).join('.') || '(body)';
  return invalid(`${field}: ${reason}`, { field, reason });
}
