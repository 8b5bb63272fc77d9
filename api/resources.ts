import type { z } from 'zod';
import type { AgentConfig } from './agentconfig.js';
import type { Budget } from './budget.js';
import type { Connector } from './connector.js';
import type { License } from './license.js';
import type { Orchestrator } from './orchestrator.js';
import type { Policy } from './policy.js';
import type { PolicyException } from './policyexception.js';

export type AgentConfigResource = z.infer<typeof AgentConfig.resource>;
export type PolicyResource = z.infer<typeof Policy.resource>;
export type ConnectorResource = z.infer<typeof Connector.resource>;
export type LicenseResource = z.infer<typeof License.resource>;
export type OrchestratorResource = z.infer<typeof Orchestrator.resource>;
export type PolicyExceptionResource = z.infer<typeof PolicyException.resource>;
export type BudgetResource = z.infer<typeof Budget.resource>;

export interface ResourceByKind {
  AgentConfig: AgentConfigResource;
  Policy: PolicyResource;
  Connector: ConnectorResource;
  License: LicenseResource;
  Orchestrator: OrchestratorResource;
  PolicyException: PolicyExceptionResource;
  Budget: BudgetResource;
}
export type AnyResource = ResourceByKind[keyof ResourceByKind];
