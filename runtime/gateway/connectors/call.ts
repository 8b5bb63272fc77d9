import {
  ConnectorError,
  isConnectorError,
  type McpIdentity,
  type McpPolicyInput,
  type PreparedCall,
  type QueryOptions,
  type QueryResult,
  type ToolResult,
} from '../../connectors/index.js';
import type { Identity } from '../../auth/identity.js';
import { ApiError, echo } from '../../http/errors.js';
import type { PolicyEvaluation, PolicyResult } from '../../policy/types.js';
import type { ConnectorRouteOptions } from '../deps.js';
import { openOutputScan, policiesEvaluatedOf, policyResultsOf, rowDecision } from '../../governed/index.js';
import { evaluatePolicies } from '../../governed/policy-call.js';
import { MCP_TOOL_REQUEST_TYPE, policyClient, requestTypeOf } from '../../policy/caller.js';
import { servesOrganization } from './tenancy.js';
import { approvalRequired, approvalStep } from './approval.js';
import type { ApprovalRecord } from '../../store/index.js';
import { endSpan, startToolSpan, withSpan, type Span } from '../../tracing/index.js';

/** One connector call as the REST routes and the MCP server receive it. */
export type ConnectorCall =
  | {
      kind: 'query';
      connector: string;
      statement: string;
      params?: unknown;
      options?: QueryOptions;
      userToken?: string;
      clientId?: string;
      via: CallVia;
      /** The approval to run the call with, once a policy's `require_approval` was approved (docs/approvals.md). */
      approvalId?: string;
    }
  | {
      kind: 'tool';
      connector: string;
      tool: string;
      params?: Record<string, unknown>;
      options?: QueryOptions;
      userToken?: string;
      clientId?: string;
      via: CallVia;
      approvalId?: string;
    };

/** Which surface the call came through, for the audit entry. */
export type CallVia = 'rest' | 'mcp-server';

export type Decision = 'allowed' | 'blocked' | 'refused' | 'failed' | 'parked';

export interface CallMetadata {
  audit_id: string;
  connector: string;
  type: string;
  operation: string;
  statement_hash?: string;
  policies_evaluated: string[];
  warnings?: string[];
  redactions?: Record<string, number>;
  truncated: boolean;
}

export type GovernedConnectorResult =
  | { kind: 'query'; result: QueryResult; metadata: CallMetadata }
  | { kind: 'tool'; result: ToolResult; metadata: CallMetadata };

/**
 * The one governed path of every connector call (REST and MCP): tenancy → allowedOperations and the SQL or
 * SSRF guard (prepare) → the policy set (`surface: "mcp"`, `input.mcp`) → run with the call's limits → the output
 * policies of an LLM answer on the result (`surface: "llm_output"`: masked in place, or blocked) → audit.
 * Every call that reaches this function leaves one audit entry, whatever its decision; the entry is committed
 * before the caller gets the answer. Refusals throw typed errors (ConnectorError, ApiError) that
 * runtime/http/error-model.ts answers in the gateway catalogue.
 */
export async function governedConnectorCall(
  deps: ConnectorRouteOptions,
  identity: Identity,
  call: ConnectorCall,
): Promise<GovernedConnectorResult> {
  // NB: the span is ended by the call's audit row (auditWriter); its policies' apply_guardrail spans are children.
  const span = startToolSpan({
    connector: call.connector,
    tool: call.kind === 'tool' ? call.tool : 'query',
    toolType: call.kind === 'tool' ? 'extension' : 'datastore',
  });
  return withSpan(span, () => connectorCall(deps, identity, call, span));
}

async function connectorCall(
  deps: ConnectorRouteOptions,
  identity: Identity,
  call: ConnectorCall,
  span: Span | undefined,
): Promise<GovernedConnectorResult> {
  const t0 = performance.now();
  const audit = auditWriter(deps, identity, call, t0, span);
  let prepared: PreparedCall<QueryResult> | PreparedCall<ToolResult>;
  try {
    const doc = deps.connectors.resource(call.connector);
    // NB: a connector of another organization is answered as absent: its name is not disclosed either.
    if (!doc || !servesOrganization(doc, identity, deps.source)) {
      throw new ConnectorError('CONNECTOR_NOT_FOUND', `no connector named ${echo(call.connector)}`, {
        connector: call.connector,
      });
    }
    prepared =
      call.kind === 'query'
        ? deps.connectors.prepareQuery(call.connector, call.statement, call.params, call.options)
        : deps.connectors.prepareTool(call.connector, call.tool, call.params ?? {}, call.options);
  } catch (err) {
    await audit.write('refused', { error: err });
    throw err;
  }

  let evaluation: PolicyEvaluation;
  try {
    evaluation = await evaluatePolicies(
      deps.policies,
      {
        query: prepared.mcp.statement ?? call.connector + '.' + prepared.operation,
        surface: 'mcp',
        client_id: call.clientId ?? identity.clientId,
        client: policyClient(identity),
        request_type: requestTypeOf('mcp', call.kind === 'tool' ? MCP_TOOL_REQUEST_TYPE : undefined),
        user: { id: call.userToken ?? '' },
        context: {},
        mcp: { ...callInput(prepared.mcp, call, identity) },
      },
      { surface: 'mcp', organizationId: identity.organizationId, tenantId: identity.tenantId },
    );
  } catch (err) {
    // an input over the policy size limit (413) is refused and audited like every other refusal
    await audit.write('refused', { prepared, error: err });
    throw err;
  }
  if (!evaluation.approved) {
    await audit.write('blocked', { prepared, evaluation, stage: 'input' });
    throw new ApiError(
      'gateway',
      'POLICY_VIOLATION',
      `blocked by policy ${evaluation.blockReason ?? evaluation.triggered.join(', ')}`,
      {
        policies: evaluation.triggered,
        connector: echo(call.connector),
      },
    );
  }

  // A policy's `require_approval`: parked for a person, or run with the approval given for it (once).
  let step: Awaited<ReturnType<typeof approvalStep>>;
  try {
    step = await approvalStep(
      deps,
      identity,
      { connector: call.connector, tool: toolOf(call), arguments: argumentsOf(call), approvalId: call.approvalId },
      evaluation,
    );
  } catch (err) {
    await audit.write('refused', { prepared, evaluation, error: err });
    throw err;
  }
  if (step && 'parked' in step) {
    const err = approvalRequired(step.parked);
    await audit.write('parked', { prepared, evaluation, approval: step.parked, error: err });
    throw err;
  }
  const approval = step?.used;

  let outcome: QueryResult | ToolResult;
  const runStart = performance.now();
  try {
    outcome = await prepared.run();
  } catch (err) {
    audit.upstreamMs = performance.now() - runStart;
    await audit.write('failed', { prepared, evaluation, approval, error: err });
    throw err;
  }
  audit.upstreamMs = performance.now() - runStart;
  const rows = rowCountOf(outcome);

  let output;
  try {
    output = await scanResult(deps, identity, call, prepared, outcome);
  } catch (err) {
    await audit.write('failed', { prepared, evaluation, rows, error: err });
    throw err;
  }
  if (output.blocked) {
    await audit.write('blocked', {
      prepared,
      evaluation: output.evaluation,
      rows,
      truncated: outcome.truncated,
      stage: 'output',
    });
    throw new ApiError('gateway', 'POLICY_VIOLATION', `the result was blocked by policy: ${output.blockReason}`, {
      stage: 'output',
      policies: output.evaluation.triggered,
      connector: echo(call.connector),
    });
  }
  outcome = output.outcome;
  const evaluated = [...evaluation.evaluated, ...(output.evaluation?.evaluated ?? [])];
  const warnings = [...evaluation.warnings, ...(output.evaluation?.warnings ?? [])];
  const auditId = await audit.write('allowed', {
    prepared,
    evaluation,
    approval,
    output: output.evaluation,
    rows,
    truncated: outcome.truncated,
    redactions: outcome.redactions,
  });
  const metadata: CallMetadata = {
    audit_id: auditId,
    connector: prepared.connector.name,
    type: prepared.connector.type,
    operation: prepared.operation,
    ...(prepared.statementHash ? { statement_hash: prepared.statementHash } : {}),
    policies_evaluated: evaluated,
    ...(warnings.length ? { warnings } : {}),
    ...(outcome.redactions ? { redactions: outcome.redactions } : {}),
    truncated: outcome.truncated,
  };
  return call.kind === 'query'
    ? { kind: 'query', result: outcome as QueryResult, metadata }
    : { kind: 'tool', result: outcome as ToolResult, metadata };
}

/**
 * `input.mcp` of a call (docs/connectors.md, Policies): what the connector runtime prepared (connector, type,
 * operation, tool, params, statement, sql), the phase, the tool's arguments, and who is calling.
 */
function callInput(prepared: McpPolicyInput, call: ConnectorCall, identity: Identity): McpPolicyInput {
  return {
    ...prepared,
    phase: 'call',
    arguments: argumentsOf(call),
    identity: mcpIdentity(identity, call.clientId, call.userToken),
  };
}

/** The tool a call names: a statement runs as `query`. */
const toolOf = (call: ConnectorCall) => (call.kind === 'tool' ? call.tool : 'query');

/** The call's arguments as policies read them and approvals hash them: a statement's are `{statement, params}`. */
function argumentsOf(call: ConnectorCall): unknown {
  return call.kind === 'tool' ? (call.params ?? {}) : { statement: call.statement, params: call.params ?? null };
}

/** `input.mcp.identity`: the caller as the policies of both phases see it. */
export function mcpIdentity(
  identity: Identity,
  clientId: string | undefined,
  userToken: string | undefined,
): McpIdentity {
  return {
    organization: identity.organizationId,
    tenant: identity.tenantId ?? null,
    client: clientId ?? identity.clientId ?? null,
    agent: null,
    user: userToken ?? null,
  };
}

/**
 * The output scan of an LLM answer (runtime/governed/output-scan.ts) on a call's result: the rows of a query, or the
 * tool's result. Its counts add to those of the connector's own redaction (`options.redact`), which ran first.
 */
async function scanResult(
  deps: ConnectorRouteOptions,
  identity: Identity,
  call: ConnectorCall,
  prepared: PreparedCall<unknown>,
  outcome: QueryResult | ToolResult,
) {
  const scan = openOutputScan(deps.policies, {
    organizationId: identity.organizationId,
    tenantId: identity.tenantId,
    clientId: call.clientId ?? identity.clientId ?? identity.credential,
    userToken: call.userToken ?? '',
    mcp: {
      connector: prepared.connector.name,
      type: prepared.connector.type,
      operation: prepared.operation,
      ...(call.kind === 'tool' ? { tool: call.tool } : {}),
    },
  });
  if (!scan.active) return { blocked: false as const, outcome, evaluation: null };
  const end = await scan.value('rows' in outcome ? outcome.rows : outcome.result);
  if (end.blocked)
    return {
      blocked: true as const,
      evaluation: end.evaluation,
      blockReason: end.evaluation.blockReason ?? end.evaluation.triggered.join(', '),
    };
  const redactions = mergeCounts(outcome.redactions, end.redactions);
  const masked =
    'rows' in outcome ? { ...outcome, rows: end.value as QueryResult['rows'] } : { ...outcome, result: end.value };
  return {
    blocked: false as const,
    outcome: { ...masked, ...(redactions ? { redactions } : {}) },
    evaluation: end.evaluation,
  };
}

function mergeCounts(
  a: Record<string, number> | undefined,
  b: Record<string, number>,
): Record<string, number> | undefined {
  if (Object.keys(b).length === 0) return a;
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Rows of a query, or of a tool whose result is rows (the SQL kinds' `query` tool). */
function rowCountOf(outcome: QueryResult | ToolResult): number | undefined {
  if ('row_count' in outcome) return outcome.row_count;
  const r = outcome.result as { row_count?: unknown } | null;
  return typeof r === 'object' && r !== null && typeof r.row_count === 'number' ? r.row_count : undefined;
}

interface AuditFacts {
  prepared?: PreparedCall<unknown>;
  evaluation?: PolicyEvaluation;
  /** the result's evaluation, when output policies were in scope */
  output?: PolicyEvaluation | null;
  error?: unknown;
  rows?: number;
  truncated?: boolean;
  redactions?: Record<string, number>;
  /** where a block happened: the call's input (its statement, tool and arguments), or its result */
  stage?: 'input' | 'output';
  /** the approval the call was parked under, or ran with */
  approval?: ApprovalRecord;
}

/** `policies_evaluated` and `policy_results` of the row (the reports count them), when there are any. */
function policyResultsFact(f: AuditFacts): { policies_evaluated?: string[]; policy_results?: PolicyResult[] } {
  const evaluated = policiesEvaluatedOf(f.evaluation, f.output);
  const results = policyResultsOf(f.evaluation, f.output);
  return {
    ...(evaluated.length ? { policies_evaluated: evaluated } : {}),
    ...(results.length ? { policy_results: results } : {}),
  };
}

/** The decision in the words of every governed call's audit row (runtime/governed/audit-record.ts). */
function governedDecision(decision: Decision, f: AuditFacts): string {
  if (decision === 'blocked') return f.stage === 'output' ? 'blocked_output' : 'blocked_input';
  if (decision === 'parked') return 'approval_required';
  if (decision === 'failed') return 'provider_error';
  if (decision === 'allowed' && f.redactions && Object.keys(f.redactions).length > 0) return 'redacted';
  return rowDecision(decision, policyResultsOf(f.evaluation, f.output));
}

/**
 * The audit entry of a connector call, in the shared `audit_entries` table: no provider, model or prompt (the
 * statement itself is not stored, its hash is), `latency_ms`, and the facts under `metadata.connector_call` so
 * that readers of LLM entries are not misled.
 */
function auditWriter(
  deps: ConnectorRouteOptions,
  identity: Identity,
  call: ConnectorCall,
  t0: number,
  span: Span | undefined,
) {
  return {
    /** time spent in the connector's own call (the database, the HTTP or MCP server) */
    upstreamMs: 0,
    async write(decision: Decision, f: AuditFacts): Promise<string> {
      const err = f.error;
      const totalMs = performance.now() - t0;
      const entry = await deps.store.audit.record({
        organizationId: identity.organizationId,
        clientId: identity.clientId ?? call.clientId ?? identity.credential,
        contextId: null,
        userToken: call.userToken,
        latencyMs: Math.round((performance.now() - t0) * 1000) / 1000,
        metadata: {
          // NB: the fields every governed call's row has, whatever the surface (the statement and rows are not stored)
          governed: true,
          via: call.via === 'rest' ? 'mcp' : 'mcp_server',
          surface: 'mcp',
          decision: governedDecision(decision, f),
          steward_ms: Math.round(Math.max(0, totalMs - this.upstreamMs) * 10) / 10,
          upstream_ms: Math.round(this.upstreamMs * 10) / 10,
          stored_text: 'masked',
          ...(f.redactions ? { redactions: f.redactions } : {}),
          ...policyResultsFact(f),
          ...(f.evaluation && decision === 'blocked'
            ? { policies: f.evaluation.triggered, block_reason: f.evaluation.blockReason }
            : {}),
          connector_call: {
            via: call.via,
            connector: call.connector,
            type: f.prepared?.connector.type,
            operation: f.prepared?.operation ?? (call.kind === 'query' ? 'query' : call.tool),
            tool: call.kind === 'tool' ? call.tool : undefined,
            statement_hash: f.prepared?.statementHash,
            sql: f.prepared?.sql,
            decision,
            policies: f.evaluation?.triggered ?? [],
            rows: f.rows,
            truncated: f.truncated,
            redactions: f.redactions,
            error_code:
              err === undefined
                ? undefined
                : isConnectorError(err)
                  ? err.code
                  : err instanceof ApiError
                    ? err.code
                    : 'INTERNAL_ERROR',
            reason: isConnectorError(err) ? err.reason : undefined,
          },
          ...(identity.tenantId ? { tenant_id: identity.tenantId } : {}),
          ...(f.approval
            ? {
                approval: {
                  id: f.approval.id,
                  state: f.approval.state,
                  policies: f.approval.policies.map((p) => p.policy),
                  ...(f.approval.decidedBy ? { decided_by: f.approval.decidedBy } : {}),
                },
              }
            : {}),
        },
      });
      if (span) {
        span.setAttributes({
          'steward.decision': String(entry.metadata?.decision),
          'steward.audit_id': entry.id,
          ...(f.prepared ? { 'steward.connector.type': f.prepared.connector.type } : {}),
        });
        const code = (entry.metadata?.connector_call as { error_code?: string } | undefined)?.error_code;
        endSpan(span, decision === 'failed' || decision === 'refused' ? (code ?? 'INTERNAL_ERROR') : undefined);
      }
      return entry.id;
    },
  };
}
