/**
 * The contract between the orchestrator's agent pool and a pool agent: one unit of work in, one result out.
 * The pool drives an in-process LocalAgent (standalone) or a remote `steward agent` (its HTTP client) through
 * the same `Agent` interface. Imports nothing that does I/O, so both sides can share it.
 */
import type { AgentLlmRoute } from '../llm/agent-route.js';

export interface WorkItem {
  /** the parallel request's id, echoed into results */ requestId: string;
  /** index of the query in its request */ queryIndex: number;
  query: string;
  /** Rego policy text (v1): its decision (deny/allow, as rego/decision.ts) gates the MCP and LLM steps */ policy: string;
  context?: Record<string, unknown>;
  mcp?: { connector: string; operation: string; parameters?: Record<string, unknown> };
  llm?: { provider?: string; model?: string; temperature?: number; max_tokens?: number };
  /** wall-clock budget of the whole item, ms */ timeoutMs: number;
}

export interface WorkResult {
  status: 'success' | 'error';
  policyDecision: 'allow' | 'deny';
  /** on success: the LLM answer (text) or, without an LLM step, the decision's messages */ result?: unknown;
  error?: { code: string; message: string };
  latencyMs: number;
  agentId: string;
  /** The provider the LLM step called, or was to: the AgentConfig's, or the default one on a fallback. */
  llm?: AgentLlmRoute;
}

export interface AgentStats {
  agentId: string;
  queriesProcessed: number;
  inFlight: number;
  maxInFlight: number;
  cpuPercent: number;
  memoryMb: number;
  /** The provider the agent's LLM steps call when an item names none; absent: the agent has none. */
  llm?: AgentLlmRoute;
}

/** One pool member's behaviour, in-process or (through the pool's remote client) over HTTP. */
export interface Agent {
  readonly id: string;
  /** Rejects with AgentBusyError when maxInFlight items already run (never queues); honours `signal` (abort = stop the work). */
  execute(item: WorkItem, signal?: AbortSignal): Promise<WorkResult>;
  stats(): AgentStats;
  close(): Promise<void>;
}

export class AgentBusyError extends Error {
  readonly code = 'AGENT_BUSY';
  constructor(
    readonly agentId: string = '',
    readonly maxInFlight: number = 0,
  ) {
    super(agentId ? `agent ${agentId} is busy (${maxInFlight} item(s) in flight)` : 'agent is busy');
    this.name = 'AgentBusyError';
  }
}

/** execute() after close(): the agent takes no new work (in-flight items still finish). */
export class AgentClosedError extends Error {
  readonly code = 'AGENT_CLOSED';
  constructor(readonly agentId: string = '') {
    super(agentId ? `agent ${agentId} is closing` : 'agent is closing');
    this.name = 'AgentClosedError';
  }
}

/**
 * Codes of `WorkResult.error`: a failed query inside a 200 parallel response (service reference, Parallel
 * surface codes: "a failed query … has result status error and an error object"). A policy deny is not one of
 * them: it is a successful evaluation with policyDecision 'deny'.
 */
export const WORK_ERROR_CODES = {
  /** the policy text does not parse or compile; the message carries `query.rego:line:column` */
  POLICY_COMPILE_ERROR: 'POLICY_COMPILE_ERROR',
  /** the policy failed while evaluating (conflict, type error, step budget); fail closed: policyDecision deny */
  POLICY_EVALUATION_ERROR: 'POLICY_EVALUATION_ERROR',
  /** the item asks for an MCP step; no connector runs on pool agents yet */
  CONNECTOR_NOT_AVAILABLE: 'CONNECTOR_NOT_AVAILABLE',
  /** the LLM provider failed or refused the request (502 on the plan surface) */
  PROVIDER_ERROR: 'PROVIDER_ERROR',
  /**
   * the item names an LLM provider this agent has not configured, or the AgentConfig does with
   * `spec.llm.fallback: false`, or no provider is configured at all (503 on the plan surface)
   */
  PROVIDER_NOT_CONFIGURED: 'PROVIDER_NOT_CONFIGURED',
  /** the item's timeoutMs passed; the work in progress was aborted */
  QUERY_TIMEOUT: 'QUERY_TIMEOUT',
} as const;
export type WorkErrorCode = keyof typeof WORK_ERROR_CODES;
