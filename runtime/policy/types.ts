import type { PolicyMode, PolicySurface } from '../../api/index.js';
import type { FailingPolicy, FailureCount } from './failures.js';
import type { PolicyLoadState } from './load.js';

/**
 * Normalized copies of the texts a request carries (docs/adr/0009-normalized-policy-input.md): what the built-in
 * pack reads. Added by the policy engine (normalized-input.ts), never by a surface; the raw fields stay as sent.
 */
export interface NormalizedTexts {
  /**
   * Every text the pack reads, normalized (runtime/text: NFKC-style folding, invisible characters removed, digits
   * of every script as ASCII, dashes as "-", look-alike letters as Latin): `query`, `llm.prompt`, each
   * `llm.messages[i]` content (each text part of an array content), `name` and tool-call arguments,
   * `llm.user`, the tool-call arguments of `llm.output`, `mcp.statement`, `mcp.query`, and every string (keys
   * included) of `mcp.params`, a tool's arguments or a statement's `$n` values (at most 1,024, 16 levels deep).
   */
  texts: string[];
  /** The contents of `llm.messages` joined with nothing between them, normalized; only with two messages or more. */
  conversation?: string;
  /** Base64-looking runs of `texts` and `conversation` that decode to text, decoded and normalized (bounded). */
  decoded: string[];
}

/** `input.client` (docs/adr/0012-axonflow-shaped-policies.md): the caller, from its verified credential only. */
export interface PolicyClient {
  /** The API client of an API-key credential; the organization id for a credential without one (license key, community). */
  id: string;
  organization_id: string;
  /** The tenant the credential is bound or narrowed to; absent: organization-wide. */
  tenant_id?: string;
}

/** The input document every policy sees (DESIGN.md, Decision contract; `client` and `request_type`: ADR 0012). */
export interface PolicyInput {
  query: string;
  surface: PolicySurface;
  client_id?: string;
  /** Every surface's input but `llm_output` (runtime/policy/caller.ts). */
  client?: PolicyClient;
  /** What the caller asked for: `/api/request`'s `request_type`, else its surface's (runtime/policy/caller.ts). */
  request_type?: string;
  user?: Record<string, unknown>;
  context?: Record<string, unknown>;
  mcp?: Record<string, unknown>;
  llm?: Record<string, unknown>;
  /** Added by the engine when a policy in scope reads it; whatever a caller sets here is replaced. */
  normalized?: NormalizedTexts;
}

/**
 * What one policy that matched (denied, warned or failed) led to: `block`, `warn`, `log` as its action says when
 * enforced; `warn` for a block under `enforcementAction: warn`; `audit` for what an audited policy would have done;
 * `exempted` when a PolicyException exempts the call.
 */
export interface PolicyResult {
  policy: string;
  mode: PolicyMode;
  /** What the policy does when carried out: its action, `block` for a failure, `warn` for a warn rule. */
  would: 'block' | 'warn' | 'log' | 'redact';
  decision: 'block' | 'warn' | 'log' | 'audit' | 'exempted' | 'redact';
  /** The PolicyException that exempted the call. */
  exception?: string;
  /** `spec.shadowOf`: the policy this one is a candidate replacement for. */
  shadowOf?: string;
}

/** A redact policy that is not enforced: what it would mask. */
export interface ObservedRedaction {
  policy: string;
  mode: 'warn' | 'audit';
  kinds: readonly string[];
}

/** A redact policy in scope: what it masks (enforced) or looks for (warn, audit). */
export interface RedactPolicy {
  policy: string;
  mode: PolicyMode;
  kinds: readonly string[];
}

/** The outcome of evaluating every enabled policy in scope, in priority order. */
export interface PolicyEvaluation {
  approved: boolean;
  /** Names of the policies that blocked or warned, in evaluation order. */
  triggered: string[];
  /** The first blocking message, prefixed with its policy name. */
  blockReason?: string;
  warnings: string[];
  /** Policies with action `log` that matched; reported to the log and audit only. */
  logged: string[];
  /** Every policy evaluated for this input, in order (the SDKs' policy_info.policies_evaluated). */
  evaluated: string[];
  /** Each policy that matched, with its mode and what it led to (audit rows, reports). */
  results: PolicyResult[];
  /**
   * Enforced policies whose `require_approval` holds (and that did not block): the call waits for a person's
   * approval (MCP tool calls, docs/approvals.md). Absent when none.
   */
  approvals?: { policy: string; reasons: readonly string[] }[];
  evaluationMs: number;
}

export interface PolicyScope {
  surface: PolicySurface;
  /** The caller's organization (verified identity): policies scoped to other organizations do not apply. */
  organizationId?: string;
  tenantId?: string;
}

/** An evaluation: at once for ordinary inputs, a promise for inputs evaluated on an isolation worker. */
export type PolicyOutcome = PolicyEvaluation | Promise<PolicyEvaluation>;

/** What the gateway, orchestrator and agents call; implemented over the Rego engine in engine.ts. */
export interface PolicyEvaluator {
  /**
   * Never rejects and never throws for a policy's failure (that is a blocked evaluation); throws
   * PolicyInputTooLargeError when the input's text exceeds the maximum.
   */
  evaluate(input: PolicyInput, scope: PolicyScope): PolicyOutcome;
  /** Names of the policies in force; none means every request is approved (/health says degraded). */
  active(): readonly string[];
  /** Names and compile errors of policies that could not be loaded. */
  problems(): readonly { policy: string; message: string }[];
  /** Each Policy's last load: in force, failed (and what stands in for it), or disabled. */
  loadStates(): readonly PolicyLoadState[];
  /**
   * Detector kinds (runtime/redact) to mask in the provider's answer for this scope: the union of the enabled
   * redact policies in scope; empty unless `scope.surface` is llm_output. Cheap (cached per policy-set version).
   */
  redactKinds(scope: PolicyScope): readonly string[];
  /**
   * The redact policies in scope that are not enforced (`enforcementAction` warn or audit): their kinds are looked
   * for in the answer and recorded (and, under warn, told to the caller), never masked. Empty unless llm_output.
   */
  observedRedactions(scope: PolicyScope): readonly ObservedRedaction[];
  /** Every redact policy in scope, enforced or not (the answer's `apply_guardrail` spans). Empty unless llm_output. */
  redactPolicies(scope: PolicyScope): readonly RedactPolicy[];
  /** Whether some Rego policy applies to the scope; false: `evaluate` would approve without evaluating anything. */
  hasPolicies(scope: PolicyScope): boolean;
  /** Policies that keep failing (the /health rule). */
  failing(): readonly FailingPolicy[];
  /** Failures since start per policy and class (the Prometheus counter). */
  failureCounts(): readonly FailureCount[];
}
