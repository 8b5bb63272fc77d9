/**
 * Runs the queries of one parallel request on the agent pool. Parallel mode keeps as many queries in flight as
 * the healthy members take at once (the pool's capacity: five agents run five at a time, so twelve queries run
 * in three waves); as one finishes, the next query takes its member. Sequential mode runs one at a time.
 *
 * Deadlines: each query's `timeout_ms` counts from the moment a member takes it (the agent enforces it and
 * answers QUERY_TIMEOUT); the whole request ends `maxRequestMs` after it started, and queries still waiting or
 * running then end with QUERY_TIMEOUT too (their work is aborted).
 */
import type { WorkItem, WorkResult } from '../../agent/work.js';
import { ApiError } from '../../http/errors.js';
import { AgentCommunicationError, NoHealthyAgentsError, PoolClosedError, type AgentPool } from '../pool/index.js';
import type { ParallelQuery, ParallelRequest } from './request.js';

export interface ParallelResult {
  query_index: number;
  status: 'success' | 'error';
  result?: unknown;
  error?: { code: string; message: string };
  metadata: {
    latency_ms: number;
    /** the agent's own time for the query (latency_ms less the dispatch and the transport); 0 without an agent */
    agent_latency_ms: number;
    policy_decision: 'allow' | 'deny';
    agent_id: string;
    request_id: string;
    timestamp: string;
  };
}

export interface ExecutionSummary {
  total_queries: number;
  successful: number;
  failed: number;
  total_time_ms: number;
  /** the sum of the queries' latencies over the wall time, e.g. "3.9x" */
  parallel_speedup: string;
  /** queries each agent ran */
  agent_utilization: Record<string, number>;
}

export interface ParallelOutcome {
  results: ParallelResult[];
  summary: ExecutionSummary;
  /** parallel_speedup as a number, for the metrics */
  speedup: number;
}

export interface RunOptions {
  pool: AgentPool;
  requestId: string;
  /** The whole request's budget; queries not finished by then end with QUERY_TIMEOUT. */
  maxRequestMs: number;
  /** Aborts everything, e.g. when the client closed the connection. */
  signal?: AbortSignal;
  log?: { error(fields: object, message: string): void };
  now?: () => Date;
}

/** Why the request's own signal fired: its deadline passed. */
class RequestDeadline extends Error {
  constructor(readonly ms: number) {
    super(`the parallel request did not finish within ${ms} ms`);
    this.name = 'RequestDeadline';
  }
}

export async function runParallel(request: ParallelRequest, options: RunOptions): Promise<ParallelOutcome> {
  const { pool, requestId } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new RequestDeadline(options.maxRequestMs)), options.maxRequestMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;

  const queries = request.queries;
  const results: ParallelResult[] = new Array<ParallelResult>(queries.length);
  const width = request.execution_mode === 'sequential' ? 1 : Math.max(1, Math.min(queries.length, pool.capacity()));
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < queries.length; i = next++) {
      results[i] = await runOne(pool, item(request, queries[i]!, i, requestId), signal, options.log, now);
    }
  };
  try {
    await Promise.all(Array.from({ length: width }, worker));
  } finally {
    clearTimeout(timer);
  }
  options.signal?.throwIfAborted();
  const wallMs = performance.now() - startedAt;
  if (deadline.signal.aborted && results.every((r) => r.status === 'error')) {
    throw new ApiError('parallel', 'QUERY_TIMEOUT', `the request did not finish within ${options.maxRequestMs} ms and no query succeeded`, {
      timeout_ms: options.maxRequestMs,
      total_queries: queries.length,
    });
  }
  return summarize(results, wallMs);
}

function item(request: ParallelRequest, q: ParallelQuery, index: number, requestId: string): WorkItem {
  return {
    requestId,
    queryIndex: index,
    query: q.query,
    policy: q.policy,
    timeoutMs: request.timeout_ms,
    ...(q.context ? { context: q.context } : {}),
    ...(q.mcp ? { mcp: q.mcp } : {}),
    ...(q.llm ? { llm: q.llm } : {}),
  };
}

async function runOne(pool: AgentPool, work: WorkItem, signal: AbortSignal, log: RunOptions['log'], now: () => Date): Promise<ParallelResult> {
  const startedAt = performance.now();
  const failed = (code: string, message: string, agentId = ''): ParallelResult =>
    result(work, { status: 'error', policyDecision: 'deny', error: { code, message }, latencyMs: performance.now() - startedAt, agentId }, now);
  if (signal.aborted) return failed('QUERY_TIMEOUT', reasonText(signal));
  try {
    const d = await pool.dispatch(work, signal);
    return result(work, { ...d.result, latencyMs: d.latencyMs }, now, d.result.latencyMs);
  } catch (err) {
    if (signal.aborted) return failed('QUERY_TIMEOUT', reasonText(signal));
    if (err instanceof AgentCommunicationError) {
      // A member that never answered within the item's timeout (plus the pool's margin): the query timed out.
      if (err.failure === 'deadline') return failed('QUERY_TIMEOUT', `the query did not finish within its timeout of ${work.timeoutMs} ms (${err.message})`, err.agentId);
      return failed('AGENT_COMMUNICATION_ERROR', err.message, err.agentId);
    }
    if (err instanceof NoHealthyAgentsError || err instanceof PoolClosedError) return failed('ORCHESTRATOR_UNAVAILABLE', err.message);
    log?.error({ err, requestId: work.requestId, queryIndex: work.queryIndex }, 'parallel query failed unexpectedly');
    return failed('PARALLEL_EXECUTION_FAILED', 'the query failed unexpectedly; see the orchestrator log with this request_id');
  }
}

function reasonText(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : 'the request was aborted';
}

function result(work: WorkItem, r: WorkResult, now: () => Date, agentLatencyMs = 0): ParallelResult {
  return {
    query_index: work.queryIndex,
    status: r.status,
    ...(r.status === 'success' ? { result: r.result ?? null } : {}),
    ...(r.error ? { error: r.error } : {}),
    metadata: {
      latency_ms: Math.round(r.latencyMs * 10) / 10,
      agent_latency_ms: Math.round(agentLatencyMs * 10) / 10,
      policy_decision: r.policyDecision,
      agent_id: r.agentId,
      request_id: work.requestId,
      timestamp: now().toISOString(),
    },
  };
}

/** The execution summary; speedup is the sum of the queries' latencies over the wall time (the reference's definition). */
function summarize(results: ParallelResult[], wallMs: number): ParallelOutcome {
  let successful = 0;
  let busyMs = 0;
  const utilization: Record<string, number> = {};
  for (const r of results) {
    if (r.status === 'success') successful++;
    busyMs += r.metadata.latency_ms;
    const id = r.metadata.agent_id;
    if (id) utilization[id] = (utilization[id] ?? 0) + 1;
  }
  const speedup = wallMs > 0 ? busyMs / wallMs : 1;
  return {
    results,
    speedup,
    summary: {
      total_queries: results.length,
      successful,
      failed: results.length - successful,
      total_time_ms: Math.round(wallMs * 10) / 10,
      parallel_speedup: `${speedup.toFixed(1)}x`,
      agent_utilization: utilization,
    },
  };
}
