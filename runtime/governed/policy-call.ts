import { PolicyInputTooLargeError } from '../policy/input-size.js';
import type { PolicyEvaluator, PolicyInput, PolicyOutcome, PolicyScope } from '../policy/types.js';
import { ApiError } from '../http/errors.js';

/**
 * Evaluates the policies for a gateway request: as `policies.evaluate`, with an input over the size limit
 * answered 413 POLICY_INPUT_TOO_LARGE. Synchronous when the evaluation is (ordinary inputs).
 */
export function evaluatePolicies(policies: PolicyEvaluator, input: PolicyInput, scope: PolicyScope): PolicyOutcome {
  try {
    return policies.evaluate(input, scope);
  } catch (err) {
    if (err instanceof PolicyInputTooLargeError) {
      throw new ApiError(
        'gateway',
        'POLICY_INPUT_TOO_LARGE',
        err.message,
        { bytes: err.bytes, max_bytes: err.maxBytes },
        { cause: err },
      );
    }
    throw err;
  }
}
