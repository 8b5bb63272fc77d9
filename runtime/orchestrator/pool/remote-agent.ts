import { Pool, type Dispatcher } from 'undici';
import { AgentBusyError, AgentClosedError, type AgentStats, type WorkItem, type WorkResult } from '../../agent/work.js';
import { AgentCommunicationError } from './errors.js';
import { traceHeaders } from '../../tracing/spans.js';
import type { ProbedAgent } from './member-source.js';

export interface RemoteAgentOptions {
  /** The agent's origin, e.g. `http://10.0.0.5:9000` or `https://travel-planner-0.agents:9443`. */
  endpoint: string;
  /** The member's id until the first probe tells the agent's own. @default the endpoint's host (`10.0.0.5:9000`) */
  id?: string;
  /** Time added to an item's timeoutMs before the call is given up: the agent enforces timeoutMs itself. @default 2s */
  deadlineMarginMs?: number;
  /** Connections kept to the agent (HTTP/1.1; one HTTP/2 connection multiplexes). @default 8 */
  connections?: number;
  /** PEM certificate authorities for https endpoints; absent: the system's. */
  ca?: string | Buffer;
  /** Slots assumed until the first GET /v1/stats says otherwise. @default 1 */
  maxInFlight?: number;
  /** The agents' shared token (STEWARD_AGENT_TOKEN), sent on /v1/work and /v1/stats. */
  token?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * A pool agent in another process, reached over HTTP/1.1, or HTTP/2 with TLS 1.3 for https endpoints.
 * One undici Pool per endpoint keeps connections alive between calls.
 */
export class RemoteAgent implements ProbedAgent {
  readonly endpoint: string;
  private readonly http: Pool;
  private readonly marginMs: number;
  /** Authorization for /v1/work and /v1/stats (the probes are public). */
  private readonly auth: Record<string, string>;
  private inFlight = 0;
  private last: AgentStats;

  constructor(options: RemoteAgentOptions) {
    const url = new URL(options.endpoint);
    const https = url.protocol === 'https:';
    this.endpoint = url.origin;
    this.marginMs = options.deadlineMarginMs ?? 2000;
    this.auth = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
    this.http = new Pool(url.origin, {
      connections: options.connections ?? 8,
      // NB: HTTP/2 only over TLS: agents speak h2 (ALPN) when they have a certificate, HTTP/1.1 otherwise.
      allowH2: https,
      connect: https ? { minVersion: 'TLSv1.3', ...(options.ca ? { ca: options.ca } : {}) } : undefined,
    });
    this.last = {
      agentId: options.id ?? url.host,
      queriesProcessed: 0,
      inFlight: 0,
      maxInFlight: options.maxInFlight ?? 1,
      cpuPercent: 0,
      memoryMb: 0,
    };
  }

  /**
   * POST /v1/work. The call is given up after `item.timeoutMs` plus the margin. Throws AgentBusyError on
   * 429, AgentCommunicationError on network errors, 5xx, a missed deadline or a malformed answer, and the
   * caller's abort reason when `signal` aborts.
   */
  async execute(item: WorkItem, signal?: AbortSignal): Promise<WorkResult> {
    signal?.throwIfAborted();
    const deadline = AbortSignal.timeout(item.timeoutMs + this.marginMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    this.inFlight++;
    try {
      const res = await this.http.request({
        method: 'POST',
        path: '/v1/work',
        headers: traceHeaders({ 'content-type': 'application/json', ...this.auth }),
        body: JSON.stringify(item),
        signal: combined,
      });
      const body = await this.readJson(res);
      if (res.statusCode === 200 && isWorkResult(body)) return body;
      if (res.statusCode === 429) throw new AgentBusyError(this.id, this.last.maxInFlight);
      // A draining agent refuses before it starts the item, like a busy one: the item may go elsewhere.
      if (res.statusCode === 503 && errorCode(body) === 'AGENT_CLOSING') throw new AgentClosedError(this.id);
      if (res.statusCode === 200)
        throw new AgentCommunicationError(
          `agent ${this.id} answered something that is not a WorkResult`,
          this.id,
          'protocol',
        );
      throw new AgentCommunicationError(`agent ${this.id} answered ${res.statusCode}`, this.id, 'status', {
        status: res.statusCode,
      });
    } catch (err) {
      if (err instanceof AgentBusyError || err instanceof AgentClosedError || err instanceof AgentCommunicationError)
        throw err;
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) {
        throw new AgentCommunicationError(
          `agent ${this.id} did not answer within ${item.timeoutMs + this.marginMs} ms`,
          this.id,
          'deadline',
          { cause: err },
        );
      }
      const failure = neverSent(err) ? 'connect' : 'network';
      throw new AgentCommunicationError(`agent ${this.id} cannot be reached (${failureCode(err)})`, this.id, failure, {
        cause: err,
      });
    } finally {
      this.inFlight--;
    }
  }

  /**
   * The id the agent reported in its last stats (its pod name); before the first probe, `options.id` or the
   * endpoint's host. Results, errors and metrics thus name the agent the same way.
   */
  get id(): string {
    return this.last.agentId;
  }

  /** GET /readyz (must be 200), then GET /v1/stats, kept for stats(). Rejects when the agent is not ready. */
  async probe(signal: AbortSignal): Promise<void> {
    const ready = await this.http.request({ method: 'GET', path: '/readyz', signal });
    await ready.body.dump();
    if (ready.statusCode !== 200)
      throw new AgentCommunicationError(`agent ${this.id} is not ready (${ready.statusCode})`, this.id, 'status', {
        status: ready.statusCode,
      });
    const res = await this.http.request({ method: 'GET', path: '/v1/stats', headers: this.auth, signal });
    const body = await this.readJson(res);
    if (res.statusCode !== 200 || !isStats(body))
      throw new AgentCommunicationError(`agent ${this.id} answered no stats (${res.statusCode})`, this.id, 'protocol');
    this.last = body;
  }

  /** The last stats the agent reported, with this process's own count of calls in flight. */
  stats(): AgentStats {
    return { ...this.last, inFlight: this.inFlight };
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async readJson(res: Dispatcher.ResponseData): Promise<unknown> {
    const text = await res.body.text();
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Errors of the connect phase: the request never left this process, so another agent may take the item. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function failureCode(err: unknown): string {
  for (let e = err; isObject(e); e = (e as { cause?: unknown }).cause) {
    if (typeof e.code === 'string') return e.code;
  }
  return err instanceof Error ? err.name : 'unknown';
}

function neverSent(err: unknown): boolean {
  for (let e = err; isObject(e); e = (e as { cause?: unknown }).cause) {
    if (typeof e.code === 'string' && CONNECT_CODES.has(e.code)) return true;
  }
  return false;
}

function errorCode(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.error)) return undefined;
  return typeof body.error.code === 'string' ? body.error.code : undefined;
}

function isWorkResult(v: unknown): v is WorkResult {
  return isObject(v) && (v.status === 'success' || v.status === 'error') && typeof v.agentId === 'string';
}

function isStats(v: unknown): v is AgentStats {
  return (
    isObject(v) &&
    typeof v.agentId === 'string' &&
    typeof v.maxInFlight === 'number' &&
    typeof v.queriesProcessed === 'number'
  );
}
