import { ApiError } from '../../http/errors.js';
import { PolicyReportTimeoutError } from './queries.js';

/**
 * A report query past its deadline as the API answers it, on either surface that reads reports (the orchestrator's
 * `/api/v1/policies/{id}/report`, the gateway's `/api/v1/governance/policies`): 503 SERVICE_UNAVAILABLE naming the
 * deadline. Any other error is given back as it is.
 */
export function reportUnavailable(surface: 'plan' | 'gateway', err: unknown): unknown {
  if (!(err instanceof PolicyReportTimeoutError)) return err;
  return new ApiError(
    surface,
    'SERVICE_UNAVAILABLE',
    `${err.message}; try again later`,
    { timeout_ms: err.timeoutMs },
    {
      cause: err,
    },
  );
}
