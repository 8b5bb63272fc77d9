import { isConnectionFailure } from './call.js';
import { LlmProviderError, LlmTimeoutError, codeForStatus, parseRetryAfterSec, type LlmError } from './errors.js';

/**
 * The OpenAI and Anthropic SDKs come from the same generator and share an error hierarchy: `APIError`
 * carries `status` and response `headers`; connection failures and the SDK's own timeout are subclasses
 * without a status.
 */
export interface HttpSdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status?: number; headers?: Headers };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

export function classifyHttpSdkError(provider: string, err: unknown, classes: HttpSdkErrorClasses): LlmError {
  if (err instanceof LlmProviderError) return err; // already ours (an unusable answer found by the adapter)
  if (err instanceof classes.APIConnectionTimeoutError) return new LlmTimeoutError(provider, 0, { cause: err });
  if (err instanceof classes.APIConnectionError || isConnectionFailure(err)) {
    return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  }
  if (err instanceof classes.APIError && typeof err.status === 'number') {
    return new LlmProviderError(provider, codeForStatus(err.status), `provider answered: ${err.message}`, {
      status: err.status,
      retryAfterSec: parseRetryAfterSec(err.headers?.get?.('retry-after')),
      cause: err,
    });
  }
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${(err as Error)?.message ?? String(err)}`, {
    cause: err,
  });
}
