/**
 * Runs the queries of one parallel request on the agent pool. Parallel mode keeps as many queries in flight as
 * the healthy members take at once (the pool's capacity: five agents run five at a time, so twelve queries run
 * in three waves); as one finishes, the next query takes its member. Sequential mode runs one at a time.
 *
 * Deadlines: each query's `timeout_ms` counts from the moment a member takes it (the agent enforces it and
 * answers QUERY_TIMEOUT); the whole request ends `maxRequestMs` after it started, and queries still waiting or
 * running then end with QUERY_TIMEOUT too (their work is aborted).
 *
 * Each query is a governed call (runtime/governed): the organization's policies (the built-in pack among them)
 * decide before the dispatch, beside the query's own Rego that the agent evaluates; a blocked query is an error
 * result (POLICY_VIOLATION) that never reached an agent. The agent's answer passes the output policies (masked)
 * and each query writes one audit row.
 */
import type { WorkItem, WorkResult } from '../../agent/work.js';
import { definedFields } from '../../../platform/objects.js';
import type { Identity } from '../../auth/identity.js';
import { collect, openGoverned, type GovernedDeps } from '../../governed/index.js';
import { ApiError } from '../../http/errors.js';
import { poolUpstream, routeView, WorkFailedError, workErrorOf } from '../governed-work.js';
import type { AgentPool } from '../pool/index.js';
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
    /** the provider the agent called; `fallback: true` when its AgentConfig's is not configured */
    provider?: string;
    model?: string;
    fallback?: boolean;
    requested_provider?: string;
    /** the governed call's caller-visible warnings (policies in warn mode) */
    warnings?: readonly string[];
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
  /** The governed pipeline every query goes through (surface `parallel`). */
  governed: GovernedDeps;
  /** The caller's verified identity: whose policies apply, whose audit rows. */
  identity: Identity;
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
      results[i] = await runOne(item(request, queries[i]!, i, requestId), signal, options, now);
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
    throw new ApiError(
      'parallel',
      'QUERY_TIMEOUT',
      `the request did not finish within ${options.maxRequestMs} ms and no query succeeded`,
      {
        timeout_ms: options.maxRequestMs,
        total_queries: queries.length,
      },
    );
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
    ...definedFields({ context: q.context, mcp: q.mcp, llm: q.llm }),
  };
}

async function runOne(work: WorkItem, signal: AbortSignal, o: RunOptions, now: () => Date): Promise<ParallelResult> {
  const startedAt = performance.now();
  const failed = (error: { code: string; message: string }, agentId = ''): ParallelResult =>
    result(
      work,
      { status: 'error', policyDecision: 'deny', error, latencyMs: performance.now() - startedAt, agentId },
      now,
    );
  if (signal.aborted) return failed({ code: 'QUERY_TIMEOUT', message: reasonText(signal) });
  const upstream = poolUpstream(o.pool, work, {
    unavailableCode: 'ORCHESTRATOR_UNAVAILABLE',
    aborted: (s) => ({ code: 'QUERY_TIMEOUT', message: reasonText(s) }),
  });
  const { identity } = o;
  try {
    const run = await openGoverned(
      o.governed,
      {
        via: 'parallel',
        surface: 'parallel',
        identity,
        clientId: identity.clientId ?? identity.organizationId,
        userToken: '',
        prompt: work.query,
        ...(work.context ? { context: work.context } : {}),
        llm: { provider: upstream.provider, model: upstream.model },
        maxTokens: work.llm?.max_tokens,
        signal,
        metadata: { request_id: work.requestId, query_index: work.queryIndex },
      },
      () => upstream,
    );
    const answer = await collect(run);
    const d = upstream.dispatched!;
    const value = typeof d.result.result === 'string' ? answer.text : parsedBack(answer.text);
    const done = result(work, { ...d.result, result: value, latencyMs: d.latencyMs }, now, d.result.latencyMs);
    if (answer.warnings.length) done.metadata.warnings = answer.warnings;
    return done;
  } catch (err) {
    const d = upstream.dispatched;
    if (d && d.result.status !== 'success')
      return result(work, { ...d.result, latencyMs: d.latencyMs }, now, d.result.latencyMs);
    if (signal.aborted) return failed({ code: 'QUERY_TIMEOUT', message: reasonText(signal) }, agentIdOf(err, d));
    const error = workErrorOf(err, 'parallel', o.log);
    // NB: the surface's code for a query that failed unexpectedly (docs/errors.md), not the whole request's.
    return failed(
      error.code === 'INTERNAL_ERROR' ? { ...error, code: 'PARALLEL_EXECUTION_FAILED' } : error,
      agentIdOf(err, d),
    );
  }
}

/**
 * An answer that is not a string, as the output scan left its JSON text. NB: masks hold no quotes, so it parses
 * back; should a mask have cut an escape, the masked text is the answer.
 */
function parsedBack(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The member that answered, or the one a pool failure names. */
function agentIdOf(err: unknown, d: { result: WorkResult } | undefined): string {
  return d?.result.agentId ?? (err instanceof WorkFailedError ? err.agentId : '');
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
      ...routeView(r.llm),
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
