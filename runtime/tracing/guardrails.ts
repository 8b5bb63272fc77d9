/**
 * The GenAI security conventions (docs/tracing.md): one `apply_guardrail {policy}` span per policy an evaluation
 * ran (pre-checks, input and output policies, connector calls) and per redact policy on an answer, each with
 * `gen_ai.security.decision.type` and `gen_ai.security.policy.id`, and one `gen_ai.security.finding` event per
 * detector match: its kind, never the matched text.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import type { PolicySurface } from '../../api/index.js';
import type { PlanResult } from '../policy/plan.js';
import type { PolicyEvaluation, PolicyResult, PolicyScope } from '../policy/types.js';
import { safeText, SpanKind, startSpan } from './spans.js';
import { tracingState } from './state.js';

export type GuardrailDecision = 'allow' | 'deny' | 'modify' | 'warn' | 'audit';

/** Findings one guardrail span carries at most (the SDK's own limit is 128 events); the rest are counted. */
export const MAX_FINDINGS = 64;

/** What a finding says of its risk, by the built-in pack's policy (custom policies: `custom:policy`). */
const RISK_CATEGORY: Readonly<Record<string, string>> = {
  'builtin-pii': 'sensitive_info_disclosure',
  'builtin-secrets': 'sensitive_info_disclosure',
  'builtin-output-redaction': 'sensitive_info_disclosure',
  'builtin-prompt-injection': 'prompt_injection',
  'builtin-sql-injection': 'custom:sql_injection',
  'builtin-dangerous-sql': 'excessive_agency',
};

/** What the guardrail was applied to, per policy surface. */
export function targetOf(surface: PolicySurface): string {
  if (surface === 'llm_output') return 'llm_output';
  if (surface === 'mcp') return 'tool_call';
  return 'llm_input';
}

/** A policy result's decision in the conventions' words. */
export function decisionOf(result: PolicyResult | undefined, failed: boolean, warned: boolean): GuardrailDecision {
  switch (result?.decision) {
    case 'block':
      return 'deny';
    case 'warn':
      return 'warn';
    case 'log':
    case 'audit':
      return 'audit';
    case 'redact':
      return 'modify';
    case 'exempted':
      return 'allow';
    case undefined:
      return failed ? 'deny' : warned ? 'warn' : 'allow';
  }
}

/**
 * The spans of one concluded evaluation, children of the active span (the call's `chat`, `execute_tool` or
 * server span). Cheap when traces are off: one check.
 */
export function guardrailSpans(result: PlanResult, evaluation: PolicyEvaluation, scope: PolicyScope): void {
  if (!tracingState.traces) return;
  const now = Date.now();
  const target = targetOf(scope.surface);
  for (let i = 0; i < result.decisions.length; i++) {
    const d = result.decisions[i]!;
    const policy = evaluation.evaluated[i] ?? d.name;
    const res = evaluation.results.find((r) => r.policy === policy);
    const decision = decisionOf(res, d.failure !== undefined, d.warn.length > 0);
    const span = startSpan(
      `apply_guardrail ${policy}`,
      SpanKind.INTERNAL,
      guardrailAttributes(policy, target, decision, res),
      undefined,
      now - d.durationMs,
    );
    if (!span) return;
    if (d.failure) {
      span.setAttribute('error.type', d.failure.class);
    } else if (decision !== 'allow' || d.warn.length) {
      const first = d.deny[0] ?? d.warn[0];
      if (first !== undefined) span.setAttribute('gen_ai.security.decision.reason', safeText(first, 256));
      const severity = res?.would === 'block' || d.blocked ? 'high' : res?.would === 'log' ? 'low' : 'medium';
      let n = 0;
      for (const message of d.deny) n = finding(span, policy, kindOf(message), severity, n);
      for (const message of d.warn) n = finding(span, policy, kindOf(message), 'medium', n);
      overflow(span, n);
    }
    span.end(now);
  }
}

/**
 * The span of one redact policy on an answer: `modify` with a finding per masked match when its kinds matched,
 * `warn`/`audit` for a policy that only looks (`enforcementAction`), else `allow`.
 */
export function redactionSpan(
  policy: { policy: string; mode: 'enforce' | 'warn' | 'audit'; kinds: readonly string[] },
  matched: Readonly<Record<string, number>>,
): void {
  if (!tracingState.traces) return;
  let hits = 0;
  for (const k of policy.kinds) hits += matched[k] ?? 0;
  const decision: GuardrailDecision =
    hits === 0 ? 'allow' : policy.mode === 'enforce' ? 'modify' : policy.mode === 'warn' ? 'warn' : 'audit';
  const attributes = guardrailAttributes(policy.policy, 'llm_output', decision, undefined);
  if (decision === 'modify') attributes['gen_ai.security.content.redacted'] = true;
  const span = startSpan(`apply_guardrail ${policy.policy}`, SpanKind.INTERNAL, attributes);
  if (!span) return;
  let n = 0;
  for (const k of policy.kinds) {
    for (let i = 0; i < (matched[k] ?? 0); i++) n = finding(span, policy.policy, k, 'medium', n);
  }
  overflow(span, n);
  span.end();
}

function guardrailAttributes(
  policy: string,
  target: string,
  decision: GuardrailDecision,
  res: PolicyResult | undefined,
): Attributes {
  return {
    'gen_ai.operation.name': 'apply_guardrail',
    'gen_ai.security.target.type': target,
    'gen_ai.security.decision.type': decision,
    'gen_ai.security.policy.id': policy,
    'gen_ai.guardian.name': 'Steward policy engine',
    'gen_ai.guardian.provider.name': 'steward',
    ...(res ? { 'steward.policy.mode': res.mode, 'steward.policy.decision': res.decision } : {}),
    ...(res?.exception ? { 'steward.policy.exception': res.exception } : {}),
  };
}

/** Adds one finding (until MAX_FINDINGS); returns the count so far. */
function finding(span: Span, policy: string, kind: string | undefined, severity: string, n: number): number {
  if (n < MAX_FINDINGS) {
    span.addEvent('gen_ai.security.finding', {
      'gen_ai.security.risk.category': RISK_CATEGORY[policy] ?? 'custom:policy',
      'gen_ai.security.risk.severity': severity,
      'gen_ai.security.policy.id': policy,
      ...(kind ? { 'gen_ai.security.risk.metadata': [`pattern:${kind}`] } : {}),
    });
  }
  return n + 1;
}

function overflow(span: Span, n: number): void {
  span.setAttribute('steward.security.findings', n);
}

/**
 * The detector kind a policy message names, in snake case: the built-in pack says `PII detected: US SSN` (`us_ssn`),
 * `Secret detected: AWS access key`. A message of another form yields none, and so does a kind with anything but
 * letters, spaces and underscores: a message may carry the caller's text, and a kind must never.
 */
export function kindOf(message: string): string | undefined {
  const at = message.lastIndexOf(': ');
  if (at === -1) return undefined;
  const kind = message.slice(at + 2).trim();
  return /^[A-Za-z][A-Za-z _]{0,63}$/.test(kind) ? kind.toLowerCase().replace(/ +/g, '_') : undefined;
}
