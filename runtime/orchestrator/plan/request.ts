/** `POST /api/v1/plan` bodies: the shape of api/http/orchestrator.ts; a refusal is a 400 INVALID_REQUEST naming the field. */
import { planRequest } from '../../../api/http/orchestrator.js';
import { ApiError, echo } from '../../http/errors.js';
import type { PlanRequest } from './service.js';

export function parsePlanRequest(body: unknown): PlanRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('plan', 'INVALID_REQUEST', 'the body must be a JSON object with a `query` string', {
      field: '(body)',
      reason: 'not an object',
    });
  }
  const parsed = planRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map((p) => echo(String(p))).join('.') || '(body)';
  const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'required' : issue.message;
  throw new ApiError('plan', 'INVALID_REQUEST', `${field}: ${reason}`, { field, reason });
}
