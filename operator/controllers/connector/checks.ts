/** The Connector's `Ready` condition, judged from gathered facts by ordered pure checks. */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { judge, type Check } from '../checks.js';

export interface ConnectorFacts {
  /** `spec.connection.secretRef`, when set. */
  secretRef?: { name: string; key: string };
  /** What is wrong with it (missing Secret or key). */
  secretProblem?: string;
  /** `status.status` and `status.message`, written by the gateway's health checks. */
  health?: string;
  healthMessage?: string;
}

export const referencesResolve: Check<ConnectorFacts> = (f) =>
  f.secretProblem
    ? { reason: Reason.SecretMissing, message: `spec.connection.secretRef: ${f.secretProblem}` }
    : undefined;

export const healthy: Check<ConnectorFacts> = (f) =>
  f.health === 'unhealthy'
    ? { reason: Reason.HealthCheckFailed, message: f.healthMessage || 'the last health check failed' }
    : undefined;

export function connectorConditions(f: ConnectorFacts): ConditionInput[] {
  const ok = f.secretRef ? `Secret ${f.secretRef.name} has key ${f.secretRef.key}` : 'no Secret referenced';
  return [
    judge(ConditionType.Ready, f, [referencesResolve, healthy], { reason: Reason.ReferencesResolved, message: ok }),
  ];
}
