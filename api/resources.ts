import type { z } from 'zod';
import type { AgentConfig } from './agentconfig.js';
import type { Connector } from './connector.js';
import type { License } from './license.js';
import type { Orchestrator } from './orchestrator.js';
import type { Policy } from './policy.js';

export type AgentConfigResource = z.infer<typeof AgentConfig.resource>;
export type PolicyResource = z.infer<typeof Policy.resource>;
export type ConnectorResource = z.infer<typeof Connector.resource>;
export type LicenseResource = z.infer<typeof License.resource>;
export type OrchestratorResource = z.infer<typeof Orchestrator.resource>;

export interface ResourceByKind {
  AgentConfig: AgentConfigResource;
  Policy: PolicyResource;
  Connector: ConnectorResource;
  License: LicenseResource;
  Orchestrator: OrchestratorResource;
}
export type AnyResource = ResourceByKind[keyof ResourceByKind];
