/**
 * A pool agent as the upstream of a governed call (runtime/governed): the orchestrator runs the pipeline's input
 * stage before it dispatches a plan step or a parallel query, and its output and audit stages on what the agent
 * answered. Pool agents stay processes without a database; they apply only the item's own Rego.
 */
import type { WorkItem } from '../agent/work.js';
import type { Upstream, UpstreamAnswer } from '../governed/index.js';
import { httpErrorOf } from '../http/error-model.js';
import type { AgentLlmRoute, LlmUsage } from '../llm/index.js';
import {
  AgentCommunicationError,
  NoHealthyAgentsError,
  PoolClosedError,
  type AgentPool,
  type Dispatched,
  type DispatchOptions,
} from './pool/index.js';

const NO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/**
 * A work item that did not end in an answer: the agent's own code (QUERY_TIMEOUT, PROVIDER_ERROR, POLICY_COMPILE_ERROR…)
 * or the pool's (AGENT_COMMUNICATION_ERROR, the surface's code for an empty pool). Thrown by the upstream, so
 * that the governed call's audit row records it, and read back by the step or the query by its `code`.
 */
export class WorkFailedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The member that ran the item, or was to; '' when none took it. */
    readonly agentId: string,
    options: { cause?: unknown; llm?: AgentLlmRoute } = {},
  ) {
    super(message, options);
    this.name = 'WorkFailedError';
    this.llm = options.llm;
    // NB: the audit row of a failed call names the provider the agent called, and a fallback (pipeline.ts).
    this.provider = options.llm?.provider;
    this.facts = fallbackFacts(options.llm);
  }
  /** The provider the agent called, or was to. */
  readonly llm: AgentLlmRoute | undefined;
  readonly provider: string | undefined;
  readonly facts: Record<string, unknown> | undefined;
}

/** The provider a step or a query called, as the plan's tasks and the parallel results show it. */
export function routeView(llm: AgentLlmRoute | undefined): {
  provider?: string;
  model?: string;
  fallback?: boolean;
  requested_provider?: string;
} {
  if (!llm) return {};
  return {
    provider: llm.provider,
    ...(llm.model ? { model: llm.model } : {}),
    fallback: llm.fallback,
    ...(llm.requested ? { requested_provider: llm.requested } : {}),
  };
}

/** A fallback, as the audit row's metadata records it. */
export function fallbackFacts(llm: AgentLlmRoute | undefined): Record<string, unknown> | undefined {
  return llm?.fallback ? { provider_fallback: true, requested_provider: llm.requested } : undefined;
}

export interface PoolUpstreamOptions extends DispatchOptions {
  /** The code of a dispatch that found no healthy member (or a closed pool): the surface's own. */
  unavailableCode: 'AGENT_UNAVAILABLE' | 'ORCHESTRATOR_UNAVAILABLE';
  /** The failure of an item whose signal fired (the plan's or the request's deadline, a cancel, the client gone). */
  aborted: (signal: AbortSignal) => { code: string; message: string };
}

/** The pool as a governed call's upstream; `dispatched` holds the agent's answer once it came (success or not). */
export interface PoolUpstream extends Upstream {
  readonly dispatched: Dispatched | undefined;
}

/**
 * One work item as an upstream. The agent's result is the answer's text (a JSON text when it is not a string);
 * a failed result, a pool failure or an abort is thrown as a WorkFailedError. Anything else is thrown as it is.
 */
export function poolUpstream(pool: AgentPool, item: WorkItem, options: PoolUpstreamOptions): PoolUpstream {
  // NB: the provider and model the item asks for; an agent without them calls its AgentConfig's (or the default).
  const provider = item.llm?.provider ?? 'default';
  const model = item.llm?.model ?? 'default';
  let dispatched: Dispatched | undefined;
  return {
    provider,
    model,
    get dispatched() {
      return dispatched;
    },
    async complete(signal): Promise<UpstreamAnswer> {
      let d: Dispatched;
      try {
        d = await pool.dispatch(item, signal, { agentConfig: options.agentConfig });
      } catch (err) {
        throw poolFailure(err, item, signal, options);
      }
      dispatched = d;
      const r = d.result;
      if (r.status !== 'success') {
        throw new WorkFailedError(
          r.error?.code ?? 'EXECUTION_ERROR',
          r.error?.message ?? 'the agent answered an error without a code',
          r.agentId,
          { llm: r.llm },
        );
      }
      const text = typeof r.result === 'string' ? r.result : JSON.stringify(r.result ?? null);
      const facts = fallbackFacts(r.llm);
      return {
        text,
        toolCalls: [],
        provider: r.llm?.provider ?? provider,
        model: r.llm?.model ?? model,
        usage: NO_USAGE,
        finishReason: 'stop',
        ...(facts ? { facts } : {}),
      };
    },
  };
}

function poolFailure(
  err: unknown,
  item: WorkItem,
  signal: AbortSignal | undefined,
  options: PoolUpstreamOptions,
): unknown {
  if (signal?.aborted) {
    const { code, message } = options.aborted(signal);
    return new WorkFailedError(code, message, err instanceof AgentCommunicationError ? err.agentId : '', {
      cause: err,
    });
  }
  if (err instanceof AgentCommunicationError) {
    // A member that never answered within the item's timeout (plus the pool's margin): the item timed out.
    if (err.failure === 'deadline') {
      return new WorkFailedError(
        'QUERY_TIMEOUT',
        `the query did not finish within its timeout of ${item.timeoutMs} ms (${err.message})`,
        err.agentId,
        { cause: err },
      );
    }
    return new WorkFailedError(err.code, err.message, err.agentId, { cause: err });
  }
  if (err instanceof NoHealthyAgentsError || err instanceof PoolClosedError)
    return new WorkFailedError(options.unavailableCode, err.message, '', { cause: err });
  return err;
}

/**
 * A governed work item's failure as a step's or a query's error: the agent's (or the pool's) own code, else the
 * surface's catalogue code for it (POLICY_VIOLATION for a blocked input or answer; server faults are logged).
 */
export function workErrorOf(
  err: unknown,
  surface: 'plan' | 'parallel',
  log?: { error(obj: object, msg: string): void },
): { code: string; message: string } {
  if (err instanceof WorkFailedError) return { code: err.code, message: err.message };
  const e = httpErrorOf(err, { surface }, log);
  return { code: e.code, message: e.message };
}
