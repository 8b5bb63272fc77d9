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
