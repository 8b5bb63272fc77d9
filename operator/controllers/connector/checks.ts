/**
 * The Connector's `Ready` condition, judged from gathered facts by ordered pure checks, and for types `mcp` and `a2a` its
 * `ToolsChanged` condition, from the pinned tool definitions the gateway writes to `status.tools`.
 */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { APPROVE_TOOLS_ANNOTATION } from '../../../api/constants.js';
import { judge, type Check } from '../checks.js';

export interface ConnectorFacts {
  /** `spec.connection.secretRef`, when set. */
  secretRef?: { name: string; key: string };
  /** What is wrong with it (missing Secret or key). */
  secretProblem?: string;
  /** `status.status` and `status.message`, written by the gateway's health checks. */
  health?: string;
  healthMessage?: string;
  /** The Connector's name (the approval command in the ToolsChanged message). */
  name?: string;
  /** `status.tools`, written by the gateway for types mcp and a2a (its card). */
  tools?: { approved?: string; current: string; changes?: string; unverified?: string };
}

export const referencesResolve: Check<ConnectorFacts> = (f) =>
  f.secretProblem
    ? { reason: Reason.SecretMissing, message: `spec.connection.secretRef: ${f.secretProblem}` }
    : undefined;

export const healthy: Check<ConnectorFacts> = (f) =>
  f.health === 'unhealthy'
    ? { reason: Reason.HealthCheckFailed, message: f.healthMessage || 'the last health check failed' }
    : undefined;

/** ToolsChanged from `status.tools`: True while the upstream's list is not the approved one. */
export function toolsChanged(f: ConnectorFacts): ConditionInput | undefined {
  const t = f.tools;
  if (!t) return undefined;
  if (t.approved === t.current && !t.unverified)
    return {
      type: ConditionType.ToolsChanged,
      status: 'False',
      reason: Reason.ToolsApproved,
      message: `the upstream lists the approved tools (${t.current})`,
    };
  const approve = t.unverified
    ? ''
    : `\nto approve: kubectl annotate connector ${f.name ?? '<name>'} ${APPROVE_TOOLS_ANNOTATION}=${t.current} --overwrite`;
  return {
    type: ConditionType.ToolsChanged,
    status: 'True',
    reason: Reason.ToolDefinitionChanged,
    message: `${t.changes ?? 'the tool list differs from the approved one'}${approve}`,
  };
}

export function connectorConditions(f: ConnectorFacts): ConditionInput[] {
  const ok = f.secretRef ? `Secret ${f.secretRef.name} has key ${f.secretRef.key}` : 'no Secret referenced';
  const tools = toolsChanged(f);
  return [
    judge(ConditionType.Ready, f, [referencesResolve, healthy], { reason: Reason.ReferencesResolved, message: ok }),
    ...(tools ? [tools] : []),
  ];
}
