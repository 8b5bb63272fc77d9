import type { ConnectorType } from '../../api/connector.js';
import type { SqlSummary } from './sql/guard.js';

/** The shapes the registry answers with: health states, the reporter contract, wire objects. */
export type HealthStatus = 'healthy' | 'unhealthy' | 'unknown';

/** What the registry knows of a connector's health; the operator writes it to Connector.status. */
export interface ConnectorStatus {
  status: HealthStatus;
  lastHealthCheck?: string;
  latencyMs?: number;
  message?: string;
  /** An `mcp` connector's tool definitions against their pins (written to `Connector.status.tools`). */
  tools?: ToolPinStatus;
}

/** `Connector.status.tools` (api/connector.ts): what is approved, what the upstream lists now, and how they differ. */
export interface ToolPinStatus {
  /** The approved list's digest: what `steward.dev/approve-tools` (or the first use) approved. */
  approved?: string;
  /** The digest of the list the upstream serves now; annotate with it to approve that list. */
  current: string;
  approvedAt?: string;
  approvedBy?: 'first-use' | 'annotation' | 'new-tool';
  /** Each tool listed now (its digest and state), then each approved tool no longer listed (`removed`). */
  tools: { name: string; digest: string; state: 'approved' | 'changed' | 'new' | 'suspect' | 'removed' }[];
  /** One line per difference, readable (absent when the lists agree). */
  changes?: string;
  /** Why the definitions could not be checked (every tool is held meanwhile). */
  unverified?: string;
}

/** Where health results go (the operator issue backs it with Connector.status). Called after every check. */
export interface ConnectorStatusReporter {
  report(name: string, status: ConnectorStatus): void | Promise<void>;
}

/** `GET /mcp/connectors` item (wire names). */
export interface ConnectorInfo {
  name: string;
  type: ConnectorType;
  status: HealthStatus;
  last_health_check: string | null;
  latency_ms: number | null;
  allowed_operations: string[];
  /** An `mcp` connector's pinned tool definitions: the approved and current list digests, how many tools are held. */
  tool_definitions?: { approved: string | null; current: string; held: number };
}

/** `GET /mcp/connectors/{name}/health` (wire names). */
export interface ConnectorHealth {
  name: string;
  type: ConnectorType;
  healthy: boolean;
  status: HealthStatus;
  latency_ms: number;
  last_check: string;
  error?: string;
}

/** `input.mcp` for the policy set (design: `{connector, type, operation, statement, params, tool}` plus `sql`). */
export interface McpPolicyInput {
  connector: string;
  type: ConnectorType;
  operation: string;
  /** The statement as the caller sent it (policies scan what the caller wrote). */
  statement?: string;
  params?: unknown;
  tool?: string;
  sql?: SqlSummary;
  /** Added by the gateway: `list` when a tool is being listed, `call` when it is called. */
  phase?: 'list' | 'call';
  /** Added by the gateway: the tool's arguments as sent (a query's: its statement and params). */
  arguments?: unknown;
  /** Added by the gateway: who calls (docs/connectors.md, Policies). */
  identity?: McpIdentity;
}

/** `input.mcp.identity`: the caller, from its verified credential and the request. */
export interface McpIdentity {
  organization: string;
  tenant: string | null;
  client: string | null;
  /** The AgentConfig of a plan step; null elsewhere (steps call the gateway under the plan caller's identity). */
  agent: string | null;
  user: string | null;
}

/** A checked call, ready to run: the gateway evaluates policy on `mcp` between prepare and `run()`. */
export interface PreparedCall<R> {
  connector: { name: string; type: ConnectorType };
  operation: string;
  /** The statement that will run (after the guard: forced LIMIT, no trailing `;`). */
  statement?: string;
  /** sha256 (hex) of the statement as sent, for the audit entry. */
  statementHash?: string;
  sql?: SqlSummary;
  mcp: McpPolicyInput;
  run(): Promise<R>;
}
