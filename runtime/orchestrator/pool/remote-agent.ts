import { Pool, type Dispatcher } from 'undici';
import { AgentBusyError, type AgentStats, type WorkItem, type WorkResult } from '../../agent/work.js';
import { AgentCommunicationError } from './errors.js';
import type { ProbedAgent } from './member-source.js';

export interface RemoteAgentOptions {
  /** The agent's origin, e.g. `http://10.0.0.5:9000` or `https://travel-planner-0.agents:9443`. */
  endpoint: string;
  /** The member's id in the pool and in metrics. @default the endpoint's host (`10.0.0.5:9000`) */
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
  readonly id: string;
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
    this.id = options.id ?? url.host;
    this.marginMs = options.deadlineMarginMs ?? 2000;
    this.auth = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
    this.http = new Pool(url.origin, {
      connections: options.connections ?? 8,
      // NB: HTTP/2 only over TLS: agents speak h2 (ALPN) when they have a certificate, HTTP/1.1 otherwise.
      allowH2: https,
      connect: https ? { minVersion: 'TLSv1.3', ...(options.ca ? { ca: options.ca } : {}) } : undefined,
    });
    this.last = { agentId: this.id, queriesProcessed: 0, inFlight: 0, maxInFlight: options.maxInFlight ?? 1, cpuPercent: 0, memoryMb: 0 };
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
        headers: { 'content-type': 'application/json', ...this.auth },
        body: JSON.stringify(item),
        signal: combined,
      });
      const body = await this.readJson(res);
      if (res.statusCode === 200 && isWorkResult(body)) return body;
      if (res.statusCode === 429) throw new AgentBusyError(this.id, this.last.maxInFlight);
      if (res.statusCode === 200) throw new AgentCommunicationError(`agent ${this.id} answered something that is not a WorkResult`, this.id, 'protocol');
      throw new AgentCommunicationError(`agent ${this.id} answered ${res.statusCode}`, this.id, 'status', { status: res.statusCode });
    } catch (err) {
      if (err instanceof AgentBusyError || err instanceof AgentCommunicationError) throw err;
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) {
        throw new AgentCommunicationError(`agent ${this.id} did not answer within ${item.timeoutMs + this.marginMs} ms`, this.id, 'deadline', { cause: err });
      }
      throw new AgentCommunicationError(`agent ${this.id} cannot be reached`, this.id, 'network', { cause: err });
    } finally {
      this.inFlight--;
    }
  }

  /** GET /readyz (must be 200), then GET /v1/stats, kept for stats(). Rejects when the agent is not ready. */
  async probe(signal: AbortSignal): Promise<void> {
    const ready = await this.http.request({ method: 'GET', path: '/readyz', signal });
    await ready.body.dump();
    if (ready.statusCode !== 200) throw new AgentCommunicationError(`agent ${this.id} is not ready (${ready.statusCode})`, this.id, 'status', { status: ready.statusCode });
    const res = await this.http.request({ method: 'GET', path: '/v1/stats', headers: this.auth, signal });
    const body = await this.readJson(res);
    if (res.statusCode !== 200 || !isStats(body)) throw new AgentCommunicationError(`agent ${this.id} answered no stats (${res.statusCode})`, this.id, 'protocol');
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

function isWorkResult(v: unknown): v is WorkResult {
  return isObject(v) && (v.status === 'success' || v.status === 'error') && typeof v.agentId === 'string';
}

function isStats(v: unknown): v is AgentStats {
  return isObject(v) && typeof v.agentId === 'string' && typeof v.maxInFlight === 'number' && typeof v.queriesProcessed === 'number';
}
