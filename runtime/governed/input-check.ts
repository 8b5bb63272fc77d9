/** The input stage: the policies on the call's input, and the context row that records their decision. */
import { policyClient, requestTypeOf } from '../policy/caller.js';
import type { PolicyEvaluation } from '../policy/types.js';
import { newId } from '../store/index.js';
import { evaluatePolicies } from './policy-call.js';
import type { GovernedDeps, GovernedRequest, InputSurface } from './types.js';

/** An input stage's outcome: the decision, and the context row on its way to the database. */
export interface InputCheck {
  evaluation: PolicyEvaluation;
  contextId: string;
  /** When the context row expires (a pre-check's audit must come before). */
  expiresAt: Date;
  /** Resolves once the context row is committed (the audit row's foreign key needs it first). Handled: awaiting later is safe. */
  committed: Promise<void>;
}

/** What the input stage asks the policies about (the pre-check and a plan's forwarding use it alone). */
export type InputCall = Pick<
  GovernedRequest,
  'identity' | 'clientId' | 'userToken' | 'prompt' | 'requestType' | 'context' | 'llm'
> & {
  surface: InputSurface | 'pre-check';
  /**
   * Whether Steward writes the call's audit row itself. @default true. A pre-check's context takes the caller's own
   * `POST /api/audit/llm-call` (its route audits a block itself as well: runtime/gateway/routes/precheck.ts).
   */
  auditedHere?: boolean;
};

/**
 * The input stage: the organization's policies for the surface, and the call's context row (approved or blocked).
 * The only writer of context rows.
 */
export async function checkInput(deps: GovernedDeps, call: InputCall): Promise<InputCheck> {
  const { identity } = call;
  const evaluation = await evaluatePolicies(
    deps.policies,
    {
      query: call.prompt,
      surface: call.surface,
      client_id: call.clientId,
      client: policyClient(identity),
      request_type: requestTypeOf(call.surface, call.requestType),
      user: { id: call.userToken },
      context: call.context ?? {},
      ...(call.llm ? { llm: call.llm } : {}),
    },
    { surface: call.surface, organizationId: identity.organizationId, tenantId: identity.tenantId },
  );
  const createdAt = deps.now();
  const expiresAt = new Date(createdAt.getTime() + deps.contextTtlMs);
  const contextId = newId('ctx');
  const written = deps.store.contexts
    .record({
      id: contextId,
      organizationId: identity.organizationId,
      clientId: call.clientId,
      userToken: call.userToken,
      // NB: the context keeps only the query's SHA-256 (runtime/store/contexts.ts), never its text
      query: call.prompt,
      approved: evaluation.approved,
      policies: evaluation.triggered,
      blockReason: evaluation.blockReason,
      warnings: evaluation.warnings,
      createdAt,
      expiresAt,
      // NB: a governed call writes its own audit row: POST /api/audit/llm-call cannot add a second one
      auditedByGateway: call.auditedHere ?? true,
    })
    .then(() => undefined);
  // NB: a pre-check is counted by the policy reports from a row of its own (runtime/store/precheck-results.ts), which
  // outlives its context and which the caller's audit row reads; the row the gateway writes for a blocked one is not
  // counted again (runtime/policy/reports/sql.ts).
  const counted =
    call.surface === 'pre-check' && (evaluation.evaluated.length || evaluation.results.length)
      ? deps.store.contexts.results.record({
          contextId,
          organizationId: identity.organizationId,
          tenantId: identity.tenantId,
          clientId: call.clientId,
          evaluated: evaluation.evaluated,
          results: evaluation.results,
          createdAt,
        })
      : undefined;
  const committed = Promise.all([written, counted]).then(() => undefined);
  committed.catch(() => {});
  return { evaluation, contextId, expiresAt, committed };
}
