/**
 * Errors of the agent pool. Callers branch on the class or on `code`, never on the message.
 * The codes are those of the parallel surface (api/errors.ts PARALLEL_ERRORS).
 */

/** Why a call to an agent failed without an answer from the agent's own logic. */
export type CommunicationFailure =
  /** no connection could be made (refused, DNS, unreachable, connect timeout): the request was never sent */
  | 'connect'
  /** the connection broke (reset, closed, TLS) after the request may have been sent */
  | 'network'
  /** the agent answered 5xx (or another status the protocol does not define) */
  | 'status'
  /** no answer within the item's timeout plus the pool's margin */
  | 'deadline'
  /** the answer was not a WorkResult */
  | 'protocol';

/**
 * An agent could not be reached or did not answer properly. Unless the failure is 'connect' (the request was
 * never sent), the item may have run on the agent, so the pool never retries it: a retry could run an LLM call
 * or an MCP operation twice.
 */
export class AgentCommunicationError extends Error {
  readonly code = 'AGENT_COMMUNICATION_ERROR';
  constructor(
    message: string,
    readonly agentId: string,
    readonly failure: CommunicationFailure,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, { cause: options?.cause });
    this.name = 'AgentCommunicationError';
    this.status = options?.status;
  }
  /** The HTTP status the agent answered, for failure 'status'. */
  readonly status: number | undefined;
}

/** No member of the pool is healthy: nothing can be dispatched (503 ORCHESTRATOR_UNAVAILABLE). */
export class NoHealthyAgentsError extends Error {
  readonly code = 'ORCHESTRATOR_UNAVAILABLE';
  constructor(
    readonly available: number,
    /** The AgentConfig the call asked for, when it asked for one. */
    readonly agentConfig?: string,
  ) {
    const of = agentConfig ? ` running AgentConfig ${agentConfig}` : '';
    super(
      available === 0
        ? `the agent pool has no members${of}`
        : `none of the ${available} agents of the pool${of} is healthy`,
    );
    this.name = 'NoHealthyAgentsError';
  }
}

/** A pool setting (e.g. STEWARD_AGENT_ENDPOINTS) is wrong; the process should not start. */
export class PoolConfigError extends Error {
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(message);
    this.name = 'PoolConfigError';
  }
}

/** The pool was closed while the call waited for a member. */
export class PoolClosedError extends Error {
  constructor() {
    super('the agent pool is closed');
    this.name = 'PoolClosedError';
  }
}
