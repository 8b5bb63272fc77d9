/**
 * The process's Prometheus metrics, through prom-client: default process and Node.js metrics, build info, HTTP
 * requests by route pattern, policy decisions, LLM calls and tokens, rate-limit rejections and store writes.
 * One per process (standalone shares it between gateway and orchestrator; `server` tells their requests apart).
 * Every label takes values from a bounded set: route patterns, methods, status classes, loaded policies, fixed
 * outcome lists, configured providers; model names (which a request may choose) are capped by `BoundedLabel`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { POLICY_FAILURES_METRIC } from './policy-failures.js';
import { registerProcessMetrics } from '../../platform/metrics.js';

/** Buckets in seconds for HTTP requests and LLM calls: 1 ms to a minute. */
const REQUEST_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Policy evaluations have a 200 ms deadline: finer buckets below it. */
const POLICY_BUCKETS_S = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5];
/** Store writes (group commit): 0.25 ms to 5 s. */
const STORE_BUCKETS_S = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** What one policy did with one input (`steward_policy_decisions_total{outcome}`). */
export type PolicyDecisionOutcome = 'allow' | 'deny' | 'warn' | 'log' | 'failed';

/** One label set of steward_http_requests_total and its count so far. */
export interface HttpRequestCell {
  readonly labels: { server: string; route: string; method: string; status_class: string };
  n: number;
}

export interface TelemetryOptions {
  version: string;
  /** Default process_* and nodejs_* metrics. @default true */
  defaultMetrics?: boolean;
}

/** Keeps the first `max` distinct values of a label a caller may choose, then answers `other`. */
export class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}
  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(value);
    return value;
  }
}

export class StewardTelemetry {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'server' | 'route' | 'method' | 'status_class'>;
  readonly httpDuration: Histogram<'server' | 'route' | 'method'>;
  readonly policyDecisions: Counter<'policy' | 'outcome'>;
  readonly policyResults: Counter<'policy' | 'mode' | 'decision'>;
  readonly policyDuration: Histogram<'approved'>;
  readonly llmRequests: Counter<'provider' | 'model' | 'outcome'>;
  readonly llmTokens: Counter<'provider' | 'model' | 'kind'>;
  readonly spendUsd: Counter<'organization' | 'model'>;
  readonly spendTokens: Counter<'organization' | 'model'>;
  readonly llmDuration: Histogram<'provider' | 'model'>;
  readonly llmFirstToken: Histogram<'provider' | 'model'>;
  readonly llmOutputRedactions: Counter<'kind'>;
  readonly llmOutputBlocks: Counter<'stream'>;
  readonly llmAuditBackgroundFailures: Counter;
  readonly rateLimitRejections: Counter<'window'>;
  readonly storeWrites: Histogram<'table'>;
  readonly parallelQueries: Counter<'status' | 'code'>;
  private readonly models = new BoundedLabel(64);
  private readonly organizations = new BoundedLabel(256);
  private readonly httpCells: HttpRequestCell[] = [];
  /** Decisions per policy, counted in plain numbers on the request path and handed to prom-client at scrape time. */
  private readonly decisionCounts = new Map<string, Record<PolicyDecisionOutcome, number>>();
  /** Matched policies by `policy \0 mode \0 decision`. */
  private readonly resultCounts = new Map<string, number>();
  private readonly approvedTimer: Histogram.Internal<'approved'>;
  private readonly blockedTimer: Histogram.Internal<'approved'>;
  private poolRead: (() => Readonly<Record<string, number>>) | undefined;
  private failureSource: () => readonly { policy: string; class: string; value: number }[] = () => [];

  constructor(options: TelemetryOptions) {
    const registers = [this.registry];
    registerProcessMetrics(this.registry, options);
    const httpCells = this.httpCells;
    this.httpRequests = new Counter({
      name: 'steward_http_requests_total',
      help: 'HTTP requests answered, by server, route pattern (unmatched: no route), method and status class.',
      labelNames: ['server', 'route', 'method', 'status_class'],
      registers,
      // NB: counted in cells on the request path (httpRequestCell); prom-client would hash the labels per request.
      collect() {
        this.reset();
        for (const c of httpCells) if (c.n > 0) this.inc(c.labels, c.n);
      },
    });
    this.httpDuration = new Histogram({
      name: 'steward_http_request_duration_seconds',
      help: 'Time from the request line to the answer sent, by server, route pattern and method.',
      labelNames: ['server', 'route', 'method'],
      buckets: REQUEST_BUCKETS_S,
      registers,
    });
    const decisionCounts = this.decisionCounts;
    this.policyDecisions = new Counter({
      name: 'steward_policy_decisions_total',
      help: 'Policy decisions per policy and outcome (allow, deny, warn, log, failed: an evaluation failure, which blocks).',
      labelNames: ['policy', 'outcome'],
      registers,
      // NB: five policies per pre-check; prom-client hashes the labels on every inc(), even of a label child.
      collect() {
        this.reset();
        for (const [policy, counts] of decisionCounts) {
          for (const outcome of Object.keys(counts) as PolicyDecisionOutcome[])
            if (counts[outcome] > 0) this.inc({ policy, outcome }, counts[outcome]);
        }
      },
    });
    const resultCounts = this.resultCounts;
    this.policyResults = new Counter({
      name: 'steward_policy_results_total',
      help: 'Policies that matched, per policy, mode (enforce, warn, audit) and decision (block, warn, log, audit: recorded only, exempted: a PolicyException).',
      labelNames: ['policy', 'mode', 'decision'],
      registers,
      collect() {
        this.reset();
        for (const [key, n] of resultCounts) {
          const [policy, mode, decision] = key.split('\u0000') as [string, string, string];
          this.inc({ policy, mode, decision }, n);
        }
      },
    });
    this.policyDuration = new Histogram({
      name: 'steward_policy_evaluation_duration_seconds',
      help: 'Time to evaluate every policy in scope for one input, by whether the input was approved.',
      labelNames: ['approved'],
      buckets: POLICY_BUCKETS_S,
      registers,
    });
    this.approvedTimer = this.policyDuration.labels({ approved: 'true' });
    this.blockedTimer = this.policyDuration.labels({ approved: 'false' });
    const failureSource = () => this.failureSource();
    new Counter({
      name: POLICY_FAILURES_METRIC,
      help: 'Policy evaluations that failed (and so blocked), by policy and failure class.',
      labelNames: ['policy', 'class'],
      registers,
      // NB: read from the engine's counts at scrape time, so a removed policy's series go away with it.
      collect() {
        this.reset();
        for (const c of failureSource()) this.inc({ policy: c.policy, class: c.class }, c.value);
      },
    });
    this.llmRequests = new Counter({
      name: 'steward_llm_requests_total',
      help: 'Calls to LLM providers, by provider, model and outcome (success, error).',
      labelNames: ['provider', 'model', 'outcome'],
      registers,
    });
    this.llmTokens = new Counter({
      name: 'steward_llm_tokens_total',
      help: 'Tokens reported by LLM providers, by provider, model and kind (prompt, completion).',
      labelNames: ['provider', 'model', 'kind'],
      registers,
    });
    this.spendUsd = new Counter({
      name: 'steward_llm_cost_usd_total',
      help: 'What governed LLM calls cost at the configured prices, in US dollars, by organization and model (calls whose model has no price are left out).',
      labelNames: ['organization', 'model'],
      registers,
    });
    this.spendTokens = new Counter({
      name: 'steward_llm_spend_tokens_total',
      help: 'Tokens governed LLM calls were charged (what budgets count), by organization and model.',
      labelNames: ['organization', 'model'],
      registers,
    });
    this.llmDuration = new Histogram({
      name: 'steward_llm_request_duration_seconds',
      help: 'Wall time of LLM provider calls, retries included, by provider and model.',
      labelNames: ['provider', 'model'],
      buckets: REQUEST_BUCKETS_S,
      registers,
    });
    this.llmFirstToken = new Histogram({
      name: 'steward_llm_time_to_first_token_seconds',
      help: 'Streamed LLM calls: time from the provider call to its first text or tool-call event, by provider and model.',
      labelNames: ['provider', 'model'],
      buckets: REQUEST_BUCKETS_S,
      registers,
    });
    this.llmOutputRedactions = new Counter({
      name: 'steward_llm_output_redactions_total',
      help: 'Spans of LLM answers masked by output policies (action redact), by detector kind.',
      labelNames: ['kind'],
      registers,
    });
    this.llmAuditBackgroundFailures = new Counter({
      name: 'steward_llm_audit_background_failures_total',
      help: 'Records of governed LLM calls (context, audit entry) that failed to write after the answer was sent (STEWARD_LLM_AUDIT=background).',
      registers,
    });
    this.llmOutputBlocks = new Counter({
      name: 'steward_llm_output_blocks_total',
      help: 'LLM answers stopped by an output policy (surface llm_output), by whether the answer was streamed.',
      labelNames: ['stream'],
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: 'steward_rate_limit_rejections_total',
      help: 'Requests refused with 429 RATE_LIMITED, by the limit window that refused them (60s, 3600s).',
      labelNames: ['window'],
      registers,
    });
    this.storeWrites = new Histogram({
      name: 'steward_store_write_duration_seconds',
      help: 'Time of one group-commit INSERT statement (a batch of rows), by table.',
      labelNames: ['table'],
      buckets: STORE_BUCKETS_S,
      registers,
    });
    this.parallelQueries = new Counter({
      name: 'steward_parallel_queries_total',
      help: 'Queries of POST /orchestrator/parallel, by result status (success, error) and error code (none on success).',
      labelNames: ['status', 'code'],
      registers,
    });
  }

  /**
   * The orchestrator's agent pool as `steward_agent_pool_members{state}` (desired, available, healthy, unhealthy),
   * read at scrape time.
   */
  watchAgentPool(read: () => Readonly<Record<'desired' | 'available' | 'healthy' | 'unhealthy', number>>): void {
    const first = this.poolRead === undefined;
    this.poolRead = read;
    if (!first) return;
    const current = () => this.poolRead!();
    new Gauge({
      name: 'steward_agent_pool_members',
      help: "The orchestrator's agent pool: members desired, available, healthy and unhealthy.",
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        for (const [state, value] of Object.entries(current())) this.set({ state }, value);
      },
    });
  }

  /** The scrape: Prometheus text exposition format and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Where `steward_policy_evaluation_failures_total` reads its counts (the policy engine's `failureCounts`). */
  watchPolicyFailures(source: () => readonly { policy: string; class: string; value: number }[]): void {
    this.failureSource = source;
  }

  /** One evaluation of a policy set (every policy in scope), in seconds. */
  policyEvaluated(approved: boolean, seconds: number): void {
    (approved ? this.approvedTimer : this.blockedTimer).observe(seconds);
  }

  /** A counter of `steward_http_requests_total` for one label set: the caller adds to `n` per request. */
  httpRequestCell(labels: HttpRequestCell['labels']): HttpRequestCell {
    const cell = { labels, n: 0 };
    this.httpCells.push(cell);
    return cell;
  }

  /** What one policy did with one input. */
  policyDecision(policy: string, outcome: PolicyDecisionOutcome): void {
    // NB: on the pre-check path, once per policy: a map lookup by the (loaded, so interned) name and an increment.
    let counts = this.decisionCounts.get(policy);
    if (!counts) this.decisionCounts.set(policy, (counts = { allow: 0, deny: 0, warn: 0, log: 0, failed: 0 }));
    counts[outcome]++;
  }

  /** What a policy that matched led to, in its mode. */
  policyResult(policy: string, mode: string, decision: string): void {
    const key = `${policy}\u0000${mode}\u0000${decision}`;
    this.resultCounts.set(key, (this.resultCounts.get(key) ?? 0) + 1);
  }

  /** One LLM call; `usage` when the provider answered. */
  llmCall(
    provider: string,
    model: string,
    seconds: number,
    usage?: { promptTokens: number; completionTokens: number },
  ): void {
    const labels = { provider, model: this.models.of(model) };
    this.llmRequests.inc({ ...labels, outcome: usage ? 'success' : 'error' });
    this.llmDuration.observe(labels, seconds);
    if (usage) {
      this.llmTokens.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
      this.llmTokens.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
    }
  }

  /** What one governed call was charged: its tokens, and its cost when its model has a price. */
  spend(organization: string, model: string, tokens: number, usd: number | undefined): void {
    const labels = { organization: this.organizations.of(organization), model: this.models.of(model) };
    if (tokens > 0) this.spendTokens.inc(labels, tokens);
    if (usd !== undefined && usd > 0) this.spendUsd.inc(labels, usd);
  }

  /** A streamed call's first event, `seconds` after the provider was called. */
  llmFirstEvent(provider: string, model: string, seconds: number): void {
    this.llmFirstToken.observe({ provider, model: this.models.of(model) }, seconds);
  }

  /** What output policies did to one answer: masked spans per kind, or a block. */
  llmOutput(redactions: Readonly<Record<string, number>>, blocked: { stream: boolean } | undefined): void {
    for (const kind in redactions) this.llmOutputRedactions.inc({ kind }, redactions[kind]);
    if (blocked) this.llmOutputBlocks.inc({ stream: String(blocked.stream) });
  }

  /** One group-commit INSERT of `table`, in milliseconds. */
  storeWrite = (table: string, ms: number): void => {
    this.storeWrites.observe({ table }, ms / 1000);
  };
}
