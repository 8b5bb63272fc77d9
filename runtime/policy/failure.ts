/**
 * Why a policy's evaluation failed. A failed policy blocks the request (fail closed), whatever its action:
 * the action says what a `deny` does, and a failure is not a deny. The class is a Prometheus label value
 * (`steward_policy_evaluation_failures_total{class}`) and, in words, part of the block reason.
 */
import type { DecisionError, LimitKind } from '../../rego/index.js';

export const FAILURE_CLASSES = [
  'deadline',
  'step_budget',
  'size_limit',
  'builtin_error',
  'evaluation_error',
  'engine_exception',
  'isolation_timeout',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

const WORDS: Record<FailureClass, string> = {
  deadline: 'deadline exceeded',
  step_budget: 'step budget exceeded',
  size_limit: 'builtin result size limit exceeded',
  builtin_error: 'builtin error',
  evaluation_error: 'evaluation error',
  engine_exception: 'engine exception',
  isolation_timeout: 'isolation timeout',
};

/** `deadline exceeded`, `builtin error`, …: the class as the block reason and /health name it. */
export function describeFailure(c: FailureClass): string {
  return WORDS[c];
}

const LIMIT_CLASSES: Record<LimitKind, FailureClass> = {
  deadline: 'deadline',
  steps: 'step_budget',
  size: 'size_limit',
};

/** The class of a decision's error: a limit error carries its kind (deadline, steps or size). */
export function classify(error: DecisionError): FailureClass {
  if (error.kind !== undefined) return LIMIT_CLASSES[error.kind];
  switch (error.code) {
    case 'eval_builtin_error':
    case 'eval_type_error': // operand errors of builtins (`input.query + 1`) in strict mode
      return 'builtin_error';
    case 'eval_cancel_error':
    case 'eval_limit_error':
      return 'deadline';
    case 'internal_error': // something other than a RegoError was thrown inside the engine
      return 'engine_exception';
    default:
      return 'evaluation_error';
  }
}

/** A policy that failed, as reported with its decision. */
export interface PolicyFailure {
  class: FailureClass;
  message: string;
}
