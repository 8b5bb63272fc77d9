/**
 * LocalAgent: runs one work item at a time (or up to maxInFlight) for one AgentConfig. Steps, in order: the
 * item's policy decision (compiled once per distinct text), then, when the policy allows, the MCP step (no
 * connector runs on agents yet) or the LLM step. The item's timeoutMs bounds all of it.
 */
import type { AgentConfigSpec } from '../../api/index.js';
import { decide, DEFAULT_DECISION_LIMITS } from '../../rego/index.js';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_TEMPERATURE,
  LlmAbortedError,
  LlmError,
  LlmNotConfiguredError,
  LlmTimeoutError,
  routeAgentLlm,
  type AgentLlmResolution,
  type AgentLlmRoute,
  type LlmRouter,
} from '../llm/index.js';
import { GenAiCall, tracingState, withSpan } from '../tracing/index.js';
import { compilePolicy, PolicyCache } from './policy-cache.js';
import { ProcessSampler } from './stats.js';
import {
  AgentBusyError,
  AgentClosedError,
  type Agent,
  type AgentStats,
  type WorkErrorCode,
  type WorkItem,
  type WorkResult,
} from './work.js';

/**
 * The policy surface of a work item. NB: 'parallel' rather than 'pre-check': it is a Policy surface already
 * (api/policy.ts), the one the parallel endpoint's queries belong to, so a policy can tell the two apart.
 */
export const WORK_SURFACE = 'parallel';

export interface LocalAgentOptions {
  /** The agent id reported in results and stats, e.g. the pod name. */
  id: string;
  /** Routes the LLM step; the owner closes it. */
  llm: LlmRouter;
  /** The AgentConfig's spec: `llm` is the LLM step's default provider and model, `description` its system text. */
  spec?: Pick<AgentConfigSpec, 'llm' | 'description'>;
  /** Items run at once; more are refused with AgentBusyError, never queued. @default 1 */
  maxInFlight?: number;
  /** Distinct policy texts kept compiled. @default 256 */
  policyCacheEntries?: number;
  /** A cache shared with others (standalone: the orchestrator's and every in-process agent's); overrides policyCacheEntries. */
  policies?: PolicyCache;
  /** Upper bound of one policy evaluation (the item's remaining time bounds it too). @default 100 ms */
  policyDeadlineMs?: number;
  /** Step budget of one policy evaluation. @default 1_000_000 */
  policyMaxSteps?: number;
}

/** Thrown inside an item when its own timeout passed; turned into QUERY_TIMEOUT. */
class ItemTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the query did not finish within its timeout of ${timeoutMs} ms`);
    this.name = 'ItemTimeout';
  }
}

/** What a running item knows of itself: its decision, once the policy made one (fail closed until then), and its provider. */
interface Progress {
  decision: 'allow' | 'deny';
  llm?: AgentLlmRoute;
}

export class LocalAgent implements Agent {
  readonly id: string;
  readonly maxInFlight: number;
  private readonly policies: PolicyCache;
  private readonly sampler = new ProcessSampler();
  /** The provider of items that name none (runtime/llm/agent-route.ts): the router's providers are fixed. */
  readonly route: AgentLlmResolution;
  private inFlight = 0;
  private processed = 0;
  private closed = false;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: LocalAgentOptions) {
    this.id = options.id;
    this.maxInFlight = options.maxInFlight ?? 1;
    if (!Number.isInteger(this.maxInFlight) || this.maxInFlight < 1)
      throw new RangeError(`maxInFlight must be an integer ≥ 1, got ${this.maxInFlight}`);
    this.policies = options.policies ?? new PolicyCache(options.policyCacheEntries ?? 256);
    this.route = routeAgentLlm(options.spec?.llm, options.llm);
    checkEngine();
  }

  /** Why the agent cannot take work (readiness), or undefined when it can. */
  notReadyReason(): string | undefined {
    if (this.closed) return 'the agent is shutting down';
    return checkEngine();
  }

  /** Whether execute() takes work: not closing. */
  get accepting(): boolean {
    return !this.closed;
  }

  /** Compilations done so far (a cache hit does none). */
  get policyCompilations(): number {
    return this.policies.compilations;
  }

  execute(item: WorkItem, signal?: AbortSignal): Promise<WorkResult> {
    if (this.closed) return Promise.reject(new AgentClosedError(this.id));
    if (this.inFlight >= this.maxInFlight) return Promise.reject(new AgentBusyError(this.id, this.maxInFlight));
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.inFlight++;
    const run = this.run(item, signal);
    // NB: the count drops in the callbacks themselves, not in a later finally(): a caller that awaits `run` and
    // sends the next item at once must find the slot free.
    const settled = () => {
      this.inFlight--;
      this.running.delete(tracked);
    };
    const tracked: Promise<void> = run.then(() => {
      this.processed++;
      settled();
    }, settled);
    this.running.add(tracked);
    return run;
  }

  stats(): AgentStats {
    return {
      agentId: this.id,
      queriesProcessed: this.processed,
      inFlight: this.inFlight,
      maxInFlight: this.maxInFlight,
      cpuPercent: this.sampler.cpuPercent(),
      memoryMb: this.sampler.memoryMb(),
      ...('missing' in this.route ? {} : { llm: this.route }),
    };
  }

  /** Takes no new work and waits for the items in flight (each bounded by its own timeout). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running]);
  }

  private async run(item: WorkItem, signal: AbortSignal | undefined): Promise<WorkResult> {
    const startedAt = performance.now();
    const progress: Progress = { decision: 'deny' };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ItemTimeout(item.timeoutMs)), item.timeoutMs);
    const onCallerAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    // NB: the race makes the abort final even for a step that ignores its signal.
    const stopped = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
    });
    stopped.catch(() => {});
    const finish = (status: WorkResult['status'], rest: Pick<WorkResult, 'result' | 'error'>): WorkResult => ({
      status,
      policyDecision: progress.decision,
      ...rest,
      ...(progress.llm ? { llm: progress.llm } : {}),
      latencyMs: Math.round((performance.now() - startedAt) * 10) / 10,
      agentId: this.id,
    });
    try {
      const outcome = await Promise.race([this.steps(item, controller.signal, startedAt, progress), stopped]);
      return finish(outcome.error ? 'error' : 'success', outcome);
    } catch (err) {
      if (err instanceof ItemTimeout)
        return finish('error', { error: { code: 'QUERY_TIMEOUT', message: err.message } });
      throw err; // the caller's abort: its reason, as fetch does
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private async steps(
    item: WorkItem,
    signal: AbortSignal,
    startedAt: number,
    progress: Progress,
  ): Promise<Pick<WorkResult, 'result' | 'error'>> {
    const fail = (code: WorkErrorCode, message: string) => ({ error: { code, message } });
    const remainingMs = () => item.timeoutMs - (performance.now() - startedAt);

    const policy = this.policies.get(item.policy);
    if (!policy.ok) return fail('POLICY_COMPILE_ERROR', policy.message);
    const budgetMs = remainingMs();
    if (budgetMs <= 0) throw new ItemTimeout(item.timeoutMs);
    const capMs = this.options.policyDeadlineMs ?? DEFAULT_DECISION_LIMITS.deadlineMs;
    const deadlineMs = Math.max(1, Math.min(capMs, Math.floor(budgetMs)));
    const input = {
      query: item.query,
      surface: WORK_SURFACE,
      context: item.context ?? {},
      ...(item.mcp ? { mcp: item.mcp } : {}),
      ...(item.llm ? { llm: item.llm } : {}),
    };
    const decision = decide(policy.prepared, policy.pkg, input, {
      deadlineMs,
      maxSteps: this.options.policyMaxSteps ?? DEFAULT_DECISION_LIMITS.maxSteps,
    });
    if (decision.error) {
      // The item's own time ran out inside the evaluation: a timeout, not a fault of the policy.
      if (decision.error.kind === 'deadline' && deadlineMs < capMs) throw new ItemTimeout(item.timeoutMs);
      return fail('POLICY_EVALUATION_ERROR', `${decision.package}: ${decision.error.code}: ${decision.error.message}`);
    }
    const messages = { deny: decision.deny, warn: decision.warn };
    if (decision.blocked) return { result: messages };
    progress.decision = 'allow';
    signal.throwIfAborted();

    if (item.mcp) {
      return fail(
        'CONNECTOR_NOT_AVAILABLE',
        `connector "${item.mcp.connector}" is not available to pool agents (operation ${item.mcp.operation})`,
      );
    }
    const configured = this.options.spec?.llm;
    if (!item.llm && !configured) return { result: messages };
    let route: AgentLlmRoute;
    if (item.llm?.provider !== undefined) {
      // The item names its provider: that one or none (PROVIDER_NOT_CONFIGURED), never a fallback. The
      // AgentConfig's model belongs to its provider; another provider answers with its own default model.
      const model =
        item.llm.model ?? (configured && item.llm.provider === configured.provider ? configured.model : undefined);
      route = { provider: item.llm.provider, model, fallback: false };
    } else if ('missing' in this.route) {
      return fail('PROVIDER_NOT_CONFIGURED', `agent ${this.id} has no LLM provider: it needs ${this.route.missing}`);
    } else {
      route = item.llm?.model === undefined ? this.route : { ...this.route, model: item.llm.model };
    }
    progress.llm = route;
    // NB: the agent's own model call, a child of the orchestrator's invoke_agent span (runtime/tracing).
    const call =
      tracingState.traces || tracingState.metrics
        ? new GenAiCall('chat', {
            provider: route.provider,
            model: route.model,
            attributes: { 'steward.agent.id': this.id },
          })
        : undefined;
    try {
      const answer = await withSpan(call?.span, () =>
        this.options.llm.complete({
          provider: route.provider,
          model: route.model,
          system: this.options.spec?.description || undefined,
          prompt: promptOf(item),
          temperature: item.llm?.temperature ?? DEFAULT_TEMPERATURE,
          maxTokens: item.llm?.max_tokens ?? DEFAULT_MAX_TOKENS,
          timeoutMs: Math.max(1, Math.floor(remainingMs())),
          signal,
        }),
      );
      if (route.model === undefined) progress.llm = { ...route, model: answer.model };
      call?.end({
        provider: answer.provider,
        responseModel: answer.model,
        inputTokens: answer.usage.promptTokens,
        outputTokens: answer.usage.completionTokens,
        finishReason: answer.finishReason,
      });
      return { result: answer.text };
    } catch (err) {
      call?.end({ errorType: err instanceof LlmError ? err.code : 'INTERNAL_ERROR', errorMessage: String(err) });
      if (signal.aborted) throw signal.reason; // our timeout or the caller's abort, whichever stopped the call
      if (err instanceof LlmTimeoutError) throw new ItemTimeout(item.timeoutMs);
      if (err instanceof LlmNotConfiguredError) return fail('PROVIDER_NOT_CONFIGURED', err.message);
      if (err instanceof LlmAbortedError) throw err;
      if (err instanceof LlmError) return fail('PROVIDER_ERROR', err.message);
      throw err;
    }
  }
}

/** A policy that allows: readiness requires that it compiles and decides here (this also warms the engine up). */
const PROBE_POLICY = 'package steward.agent.probe\n\nallow if input.surface == "parallel"\n';

/**
 * The self-check passed once in this process: every in-process agent of standalone shares the engine. A failure
 * is not kept: the next readiness probe checks again (a first evaluation on a starved machine may overrun).
 */
let enginePassed = false;

function checkEngine(): string | undefined {
  if (enginePassed) return undefined;
  const problem = runEngineCheck();
  enginePassed = problem === undefined;
  return problem;
}

function runEngineCheck(): string | undefined {
  const entry = compilePolicy(PROBE_POLICY);
  if (!entry.ok) return `the policy engine failed its self-check: ${entry.message}`;
  // NB: a generous deadline: this checks that the engine works, not how fast a cold one is on a busy machine.
  const d = decide(
    entry.prepared,
    entry.pkg,
    { query: 'probe', surface: WORK_SURFACE, context: {} },
    { deadlineMs: 5000, maxSteps: DEFAULT_DECISION_LIMITS.maxSteps },
  );
  if (d.error || d.blocked)
    return `the policy engine failed its self-check: ${d.error?.message ?? 'the probe policy was blocked'}`;
  return undefined;
}

/** The user turn: the query, then the item's context as JSON when it has one. */
function promptOf(item: WorkItem): string {
  if (!item.context || Object.keys(item.context).length === 0) return item.query;
  return `${item.query}\n\nContext (JSON): ${JSON.stringify(item.context)}`;
}
