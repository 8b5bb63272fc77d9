/**
 * The Orchestrator's `Ready` and `Degraded` conditions, judged from gathered facts by ordered pure checks.
 */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import { capMessage } from '../cap.js';
import { judge, type Check } from '../checks.js';
import type { NodeCap } from '../pool.js';

export interface OrchestratorFacts {
  communityMode: boolean;
  /** `spec.licenseRef.name`. */
  licenseRef?: string;
  /** The referenced License's status; undefined when it does not exist. */
  license?: { valid?: boolean; reason?: string };
  /** Problem with `spec.database.secretRef` (missing Secret or key); undefined when fine or absent. */
  databaseProblem?: string;
  hasDatabase: boolean;
  /** Problems with the other referenced Secrets (redis, LLM keys, TLS). */
  secretProblems: string[];
  /** Replicas wanted (after the node cap) and ready, per component. */
  gateway: { wanted: number; ready: number };
  orchestrator: { wanted: number; ready: number };
  cap?: NodeCap;
  /** `status.pool`, written by the orchestrator runtime. */
  pool?: { desired: number; healthy: number };
}

export const licenseValid: Check<OrchestratorFacts> = (f) => {
  if (f.licenseRef === undefined) {
    return f.communityMode
      ? undefined
      : { reason: Reason.LicenseInvalid, message: 'no licenseRef and communityMode is false' };
  }
  if (!f.license) return { reason: Reason.LicenseInvalid, message: `License ${f.licenseRef} not found` };
  if (f.license.valid === undefined)
    return { reason: Reason.LicenseInvalid, message: `License ${f.licenseRef} has not been verified yet` };
  if (!f.license.valid)
    return {
      reason: Reason.LicenseInvalid,
      message: `License ${f.licenseRef} is not valid: ${f.license.reason ?? 'no reason given'}`,
    };
  return undefined;
};

export const databaseSecretPresent: Check<OrchestratorFacts> = (f) =>
  f.databaseProblem
    ? { reason: Reason.DatabaseUnreachable, message: `spec.database: ${f.databaseProblem}` }
    : undefined;

export const secretsPresent: Check<OrchestratorFacts> = (f) =>
  f.secretProblems.length ? { reason: Reason.SecretMissing, message: f.secretProblems.join('; ') } : undefined;

export const replicasReady: Check<OrchestratorFacts> = (f) => {
  const short = (['gateway', 'orchestrator'] as const).filter((c) => f[c].ready < f[c].wanted);
  if (!short.length) return undefined;
  return {
    reason: Reason.ReplicasUnavailable,
    message: short.map((c) => `${c} ${f[c].ready}/${f[c].wanted} ready`).join(', '),
  };
};

export const withinNodeLimit: Check<OrchestratorFacts> = (f) =>
  f.cap?.allocation.limited
    ? { reason: Reason.NodeLimitExceeded, message: capMessage(f.cap.license, f.cap.maxNodes, f.cap.allocation) }
    : undefined;

/** Embedded PGlite is one process's database: several replicas would each have their own. */
export const embeddedDatabaseSingleReplica: Check<OrchestratorFacts> = (f) => {
  if (f.hasDatabase) return undefined;
  const many = (['gateway', 'orchestrator'] as const).filter((c) => f[c].wanted > 1);
  if (!many.length) return undefined;
  return {
    reason: Reason.DatabaseUnreachable,
    message: `spec.database is absent: embedded PGlite serves a single replica, and ${many.map((c) => `${c} has ${f[c].wanted}`).join(' and ')}`,
  };
};

export const poolHealthy: Check<OrchestratorFacts> = (f) =>
  f.pool && f.pool.healthy < f.pool.desired
    ? { reason: Reason.PoolUnhealthy, message: `${f.pool.healthy}/${f.pool.desired} pool agents healthy` }
    : undefined;

export const READY_CHECKS = [licenseValid, databaseSecretPresent, secretsPresent, replicasReady] as const;
export const DEGRADED_CHECKS = [withinNodeLimit, embeddedDatabaseSingleReplica, poolHealthy] as const;

export function orchestratorConditions(f: OrchestratorFacts): ConditionInput[] {
  return [
    judge(ConditionType.Ready, f, READY_CHECKS, {
      reason: Reason.Reconciled,
      message: 'gateway and orchestrator replicas are ready',
    }),
    judge(ConditionType.Degraded, f, DEGRADED_CHECKS, { reason: Reason.Reconciled, message: '' }, 'True'),
  ];
}
