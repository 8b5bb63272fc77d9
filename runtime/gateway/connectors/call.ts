import { ConnectorError, isConnectorError, type PreparedCall, type QueryOptions, type QueryResult, type ToolResult } from '../../connectors/index.js';
import type { Identity } from '../../auth/identity.js';
import { ApiError, echo } from '../../http/errors.js';
import type { PolicyEvaluation } from '../../policy/types.js';
import type { GatewayDeps } from '../deps.js';
import { evaluatePolicies } from '../policy-call.js';
import { servesOrganization } from './tenancy.js';

/** One connector call as the REST routes and the MCP server receive it. */
export type ConnectorCall =
  | { kind: 'query'; connector: string; statement: string; params?: unknown; options?: QueryOptions; userToken?: string; clientId?: string; via: CallVia }
  | { kind: 'tool'; connector: string; tool: string; params?: Record<string, unknown>; options?: QueryOptions; userToken?: string; clientId?: string; via: CallVia };

/** Which surface the call came through, for the audit entry. */
export type CallVia = 'rest' | 'mcp-server';

export type Decision = 'allowed' | 'blocked' | 'refused' | 'failed';

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
 * SSRF guard (prepare) → the policy set (`surface: "mcp"`, `input.mcp`) → run with the call's limits → audit.
 * Every call that reaches this function leaves one audit entry, whatever its decision; the entry is committed
 * before the caller gets the answer. Refusals throw ApiErrors of the gateway catalogue.
 */
export async function governedConnectorCall(deps: GatewayDeps, identity: Identity, call: ConnectorCall): Promise<GovernedConnectorResult> {
  const t0 = performance.now();
  const audit = auditWriter(deps, identity, call, t0);
  let prepared: PreparedCall<QueryResult> | PreparedCall<ToolResult>;
  try {
    const doc = deps.connectors.resource(call.connector);
    // NB: a connector of another organization is answered as absent: its name is not disclosed either.
    if (!doc || !servesOrganization(doc, identity, deps.source)) {
      throw new ConnectorError('CONNECTOR_NOT_FOUND', `no connector named ${echo(call.connector)}`, { connector: call.connector });
    }
    prepared =
      call.kind === 'query'
        ? deps.connectors.prepareQuery(call.connector, call.statement, call.params, call.options)
        : deps.connectors.prepareTool(call.connector, call.tool, call.params ?? {}, call.options);
  } catch (err) {
    await audit.write('refused', { error: err });
    throw toApiError(err);
  }

  let evaluation: PolicyEvaluation;
  try {
    evaluation = await evaluatePolicies(
      deps.policies,
      {
        query: prepared.mcp.statement ?? call.connector + '.' + prepared.operation,
        surface: 'mcp',
        client_id: call.clientId ?? identity.clientId,
        user: { id: call.userToken ?? '' },
        context: {},
        mcp: { ...prepared.mcp },
      },
      { surface: 'mcp', organizationId: identity.organizationId, tenantId: identity.tenantId },
    );
  } catch (err) {
    // an input over the policy size limit (413) is refused and audited like every other refusal
    await audit.write('refused', { prepared, error: err });
    throw err;
  }
  if (!evaluation.approved) {
    await audit.write('blocked', { prepared, evaluation });
    throw new ApiError('gateway', 'POLICY_VIOLATION', `blocked by policy ${evaluation.blockReason ?? evaluation.triggered.join(', ')}`, {
      policies: evaluation.triggered,
      connector: echo(call.connector),
    });
  }

  let outcome: QueryResult | ToolResult;
  try {
    outcome = await prepared.run();
  } catch (err) {
    await audit.write('failed', { prepared, evaluation, error: err });
    throw toApiError(err);
  }
  const rows = rowCountOf(outcome);
  const auditId = await audit.write('allowed', { prepared, evaluation, rows, truncated: outcome.truncated, redactions: outcome.redactions });
  const metadata: CallMetadata = {
    audit_id: auditId,
    connector: prepared.connector.name,
    type: prepared.connector.type,
    operation: prepared.operation,
    ...(prepared.statementHash ? { statement_hash: prepared.statementHash } : {}),
    policies_evaluated: evaluation.evaluated,
    ...(evaluation.warnings.length ? { warnings: evaluation.warnings } : {}),
    ...(outcome.redactions ? { redactions: outcome.redactions } : {}),
    truncated: outcome.truncated,
  };
  return call.kind === 'query' ? { kind: 'query', result: outcome as QueryResult, metadata } : { kind: 'tool', result: outcome as ToolResult, metadata };
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
  error?: unknown;
  rows?: number;
  truncated?: boolean;
  redactions?: Record<string, number>;
}

/**
 * The audit entry of a connector call, in the shared `audit_entries` table: no provider, model or prompt (the
 * statement itself is not stored, its hash is), `latency_ms`, and the facts under `metadata.connector_call` so
 * that readers of LLM entries are not misled.
 */
function auditWriter(deps: GatewayDeps, identity: Identity, call: ConnectorCall, t0: number) {
  return {
    async write(decision: Decision, f: AuditFacts): Promise<string> {
      const err = f.error;
      const entry = await deps.store.audit.record({
        organizationId: identity.organizationId,
        clientId: identity.clientId ?? call.clientId ?? identity.credential,
        contextId: null,
        userToken: call.userToken,
        latencyMs: Math.round((performance.now() - t0) * 1000) / 1000,
        metadata: {
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
            error_code: err === undefined ? undefined : isConnectorError(err) ? err.code : err instanceof ApiError ? err.code : 'INTERNAL_ERROR',
            reason: isConnectorError(err) ? err.reason : undefined,
          },
          ...(identity.tenantId ? { tenant_id: identity.tenantId } : {}),
        },
      });
      return entry.id;
    },
  };
}

const MESSAGE_MAX_CHARS = 160;

/** ConnectorError codes are gateway codes of the same name (api/errors.ts). */
export function toApiError(err: unknown): unknown {
  if (!isConnectorError(err)) return err;
  const details: Record<string, unknown> = {};
  if (err.connector) details.connector = echo(err.connector);
  if (err.reason) details.reason = err.reason;
  // NB: driver messages can repeat a parameter or a token of the statement: bounded like every echo of input.
  return new ApiError('gateway', err.code, echo(err.message, MESSAGE_MAX_CHARS), Object.keys(details).length ? details : undefined, { cause: err });
}
