/**
 * The answers the console reads, as the server's schemas in api/http/ define them. The imports are type-only, so
 * the bundle holds nothing of api/ (nor zod), and the console's typecheck fails when an answer changes under a page.
 */
import type { z } from 'zod';
import type { approvalList } from '../../api/http/gateway/approvals.js';
import type { auditEntry, auditEntryDetail, auditEntryList, auditSummary } from '../../api/http/gateway/audit-read.js';
import type { budgetListResponse } from '../../api/http/gateway/budgets.js';
import type { connectorInfo } from '../../api/http/gateway/connectors.js';
import type { governedAgentList, governedPolicyList, whoami } from '../../api/http/gateway/governance.js';
import type { policyTestResponse } from '../../api/http/gateway/policy.js';

/** `GET /api/v1/whoami`. */
export type Identity = z.infer<typeof whoami>;

/** `GET /api/v1/audit/summary`. */
export type AuditSummary = z.infer<typeof auditSummary>;
export type SummaryWindow = AuditSummary['window'];
export type SummaryBucket = AuditSummary['buckets'][number];

/** `GET /api/v1/audit/entries` and `/entries/{id}`. */
export type AuditEntry = z.infer<typeof auditEntry>;
export type AuditEntryList = z.infer<typeof auditEntryList>;
export type AuditEntryDetail = z.infer<typeof auditEntryDetail>;

/** `GET /api/v1/governance/policies`. */
export type PolicyList = z.infer<typeof governedPolicyList>;
export type PolicyView = PolicyList['policies'][number];

/** `POST /api/policies/test`. */
export type PolicyTestResult = z.infer<typeof policyTestResponse>;

/** `GET /api/v1/budgets`. */
export type BudgetList = z.infer<typeof budgetListResponse>;
export type BudgetView = BudgetList['budgets'][number];
export type Amount = BudgetView['spent'];

/** `GET /api/v1/governance/agents`. */
export type AgentList = z.infer<typeof governedAgentList>;
export type AgentView = AgentList['agents'][number];

/**
 * An item of `GET /mcp/connectors`. NB: the gateway adds an `mcp` connector's pinned tool definitions
 * (runtime/connectors/status.ts), which the list's schema does not name yet.
 */
export type ConnectorView = z.infer<typeof connectorInfo> & {
  error?: string;
  tool_definitions?: { approved?: string | null; current?: string; held: number };
};
export interface ConnectorList {
  connectors: ConnectorView[];
  count: number;
}

/** `GET /api/approvals?state=pending`. */
export type ApprovalList = z.infer<typeof approvalList>;
export type Approval = ApprovalList['approvals'][number];

/** An error body: the agent style `{error: "<message>", code}` or the envelope `{error: {code, message}}`. */
export interface ErrorBody {
  error?: string | { code?: string; message?: string };
  code?: string;
  message?: string;
}
