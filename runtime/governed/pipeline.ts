/**
 * The one governed path of every call that reaches a model, whatever the surface it came in on (docs/architecture.md,
 * ADR 0011): admission (tokens per minute) → input policies → context row → budgets (the upstream's price, ADR 0018)
 * → upstream (a provider, whole or streamed, or a pool agent) → output scan (block, or mask streaming-safe) → audit row, written before the answer's end.
 * Surfaces differ only in how they render `GovernedRun.events()`; none of them re-implements a stage.
 *
 * This module opens a call and runs its stages in order; each stage is its own module: admission.ts,
 * input-check.ts, answer.ts (the output scan) and audit-record.ts.
 */
import { LlmAbortedError } from '../llm/index.js';
import { GenAiCall, inContext, tracingState, withSpan } from '../tracing/index.js';
import { admitBudget, admitTokens } from './admission.js';
import { answer } from './answer.js';
import { AuditRecord } from './audit-record.js';
import { PolicyBlockedError } from './errors.js';
import { checkInput, type InputCheck } from './input-check.js';
import { openOutputScan } from './output-scan.js';
import { streamSource, wholeSource, type Source } from './source.js';
import type { GovernedAnswer, GovernedDeps, GovernedRequest, GovernedRun, Upstream } from './types.js';

export { auditText } from './audit-text.js';
export { recordOutcome, type Outcome } from './audit-record.js';
export { checkInput, type InputCall, type InputCheck } from './input-check.js';

/**
 * Opens one governed call: admission, the input stage and the upstream's start. Throws, before anything is sent,
 * the typed failures of these stages (a blocked input is a PolicyBlockedError; the upstream was never called).
 * Each of them is audited like an answer.
 */
export async function openGoverned(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstreamOf: () => Upstream,
): Promise<GovernedRun> {
  // NB: the span starts before the input policies, whose apply_guardrail spans are its children (runtime/tracing).
  const call = tracingState.traces || tracingState.metrics ? genAiCallOf(req) : undefined;
  return withSpan(call?.span, () => governed(deps, req, upstreamOf, call));
}

async function governed(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstreamOf: () => Upstream,
  call: GenAiCall | undefined,
): Promise<GovernedRun> {
  const t0 = performance.now();
  const reservation = await admitTokens(deps, req.identity, req.prompt, req.maxTokens);
  let check: InputCheck;
  try {
    check = await checkInput(deps, req);
  } catch (err) {
    reservation?.settle(0);
    throw err;
  }
  const policyMs = performance.now() - t0;
  req.timing?.('policy', policyMs);
  const audit = new AuditRecord(deps, req, check, t0, reservation, call);
  if (!check.evaluation.approved) {
    await audit.write({
      decision: 'blocked_input',
      provider: req.llm?.provider,
      model: req.llm?.model,
      blocked: check.evaluation,
    });
    throw new PolicyBlockedError('input', check.evaluation, check.contextId);
  }
  let upstream: Upstream;
  try {
    // NB: after the policies: an input they block is blocked whether or not a provider is configured.
    upstream = upstreamOf();
  } catch (err) {
    await audit.write({ decision: 'refused', provider: req.llm?.provider, model: req.llm?.model, error: err });
    throw err;
  }
  call?.upstream(upstream.provider, upstream.model);
  try {
    // NB: after the upstream is known (its model's price), before it is called: a refused call spends nothing.
    audit.budget = await admitBudget(deps, req, upstream);
  } catch (err) {
    await audit.write({ decision: 'refused', provider: upstream.provider, model: upstream.model, error: err });
    throw err;
  }
  const scan = openOutputScan(deps.policies, {
    organizationId: req.identity.organizationId,
    tenantId: req.identity.tenantId,
    clientId: req.clientId,
    userToken: req.userToken,
    provider: upstream.provider,
    model: upstream.model,
    ...(req.context ? { context: req.context } : {}),
  });
  const started = performance.now();
  const source = await callUpstream(deps, req, upstream, audit, started);
  return {
    contextId: check.contextId,
    auditId: audit.id,
    evaluation: check.evaluation,
    provider: source.provider ?? upstream.provider,
    model: source.model ?? upstream.model,
    ...(audit.budget ? { budget: audit.budget } : {}),
    events: () => {
      const events = answer({ deps, req, upstream, source, scan, audit, check, started });
      // NB: read by the surface outside the span: the output policies and the audit row still belong to the call.
      return call?.span ? inContext(call.context, events) : events;
    },
  };
}

/**
 * The call's span and metrics: an agent's work is `invoke_agent` (a pool agent's plan step or parallel query, an A2A
 * message to an agent's card), a provider's answer `chat`.
 */
function genAiCallOf(req: GovernedRequest): GenAiCall {
  const agentWork = req.via === 'plan_step' || req.via === 'parallel' || (req.via === 'a2a' && req.agent !== undefined);
  return new GenAiCall(agentWork ? 'invoke_agent' : 'chat', {
    model: req.llm?.model,
    provider: req.llm?.provider,
    agent: req.agent,
    maxTokens: req.maxTokens,
    attributes: { 'steward.via': req.via },
  });
}

/**
 * The upstream's start: its stream, or its whole answer. A failure to start is recorded (telemetry and the audit
 * row) and thrown.
 */
async function callUpstream(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstream: Upstream,
  audit: AuditRecord,
  started: number,
): Promise<Source> {
  let source: Source;
  try {
    source =
      req.stream && upstream.stream
        ? streamSource(await upstream.stream(req.signal))
        : wholeSource(await upstream.complete(req.signal));
  } catch (err) {
    const ms = performance.now() - started;
    audit.upstreamMs = ms;
    deps.telemetry.llmCall(providerOf(err, upstream.provider), upstream.model, ms / 1000);
    await audit.write({
      decision: err instanceof LlmAbortedError ? 'client_closed' : 'provider_error',
      provider: providerOf(err, upstream.provider),
      model: upstream.model,
      error: err,
      facts: factsOf(err),
    });
    throw err;
  }
  audit.upstreamMs = performance.now() - started;
  req.timing?.('upstream', audit.upstreamMs, req.stream ? 'until the upstream accepted' : undefined);
  return source;
}

/** The whole answer of a run: its events collected; throws what ended it. */
export async function collect(run: GovernedRun): Promise<GovernedAnswer> {
  for await (const ev of run.events()) if (ev.type === 'end') return ev.answer;
  throw new Error('a governed answer ended without its end event');
}

/** The provider a failed call names (the LLM layer's errors carry it), else the one asked for. */
function providerOf(err: unknown, fallback: string): string {
  return err instanceof Error && 'provider' in err && typeof err.provider === 'string' ? err.provider : fallback;
}

/** The facts an upstream's failure carries for the audit row (as UpstreamAnswer.facts), if any. */
function factsOf(err: unknown): Record<string, unknown> | undefined {
  return err instanceof Error && 'facts' in err && typeof err.facts === 'object' && err.facts !== null
    ? (err.facts as Record<string, unknown>)
    : undefined;
}
