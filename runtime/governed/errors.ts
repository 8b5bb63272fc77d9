/**
 * The governed pipeline's own failures, as types. Each surface answers them in its envelope through the one
 * mapping in runtime/http/error-model.ts; nothing branches on their names or messages.
 */
import type { PolicyEvaluation } from '../policy/types.js';

/** An input or an answer that a policy stopped. */
export class PolicyBlockedError extends Error {
  constructor(
    /** `input`: nothing reached the upstream; `output`: the answer (or what was left of it) was withheld. */
    readonly stage: 'input' | 'output',
    readonly evaluation: PolicyEvaluation,
    readonly contextId: string,
  ) {
    const reason = evaluation.blockReason ?? 'policy';
    super(stage === 'input' ? `blocked by policy: ${reason}` : `the answer was blocked by policy: ${reason}`);
    this.name = 'PolicyBlockedError';
  }

  /** The details every envelope carries: the reason, the policies and the context. */
  get details(): Record<string, unknown> {
    return {
      ...(this.stage === 'output' ? { stage: 'output' } : {}),
      block_reason: this.evaluation.blockReason,
      policies: this.evaluation.triggered,
      context_id: this.contextId,
    };
  }
}

/** The answer was produced (a stream: sent) but its audit row could not be written: the caller must discard it. */
export class AuditFailedError extends Error {
  constructor(
    readonly auditId: string,
    options: { cause?: unknown } = {},
  ) {
    super('the answer could not be audited; discard it', options);
    this.name = 'AuditFailedError';
  }
}
