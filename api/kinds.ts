import { AgentConfig } from './agentconfig.js';
import { Budget } from './budget.js';
import { Connector } from './connector.js';
import { License } from './license.js';
import { Orchestrator } from './orchestrator.js';
import { Policy } from './policy.js';
import { PolicyException } from './policyexception.js';
import type { ResourceByKind } from './resources.js';

/** The custom resources, in the order the docs list them. */
export const KINDS = [Orchestrator, AgentConfig, Policy, Connector, License, PolicyException, Budget] as const;

export type KindName = keyof ResourceByKind;
export const KIND_NAMES = KINDS.map((k) => k.kind) as KindName[];

export function kindByName(kind: string): (typeof KINDS)[number] | undefined {
  return KINDS.find((k) => k.kind === kind);
}
