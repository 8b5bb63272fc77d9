/** The coordination.k8s.io/v1 Lease spec and the pure judgements leader election makes on it. */

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: `2026-01-02T15:04:05.000000Z`. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** A MicroTime as the API server writes it (microseconds; JavaScript dates carry milliseconds). */
export function microTime(at: Date): string {
  return at.toISOString().replace(/Z$/, '000Z');
}

/**
 * The spec `identity` writes when it takes or renews the Lease at `now`. `kept` carries what survives a renewal
 * (acquireTime, leaseTransitions); without acquireTime this is an acquisition.
 */
export function leaseSpec(
  identity: string,
  leaseDurationMs: number,
  now: Date,
  kept: Pick<LeaseSpec, 'acquireTime' | 'leaseTransitions'> = {},
): LeaseSpec {
  const at = microTime(now);
  return {
    holderIdentity: identity,
    // NB: the field is whole seconds; rounding up never lets another replica take the Lease early.
    leaseDurationSeconds: Math.max(1, Math.ceil(leaseDurationMs / 1000)),
    acquireTime: kept.acquireTime ?? at,
    renewTime: at,
    leaseTransitions: kept.leaseTransitions ?? 0,
  };
}

/** True when the Lease's holder may be replaced: nobody holds it, or the last renewal is older than its duration. */
export function leaseExpired(spec: LeaseSpec, now: Date): boolean {
  if (!spec.holderIdentity) return true;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (!Number.isFinite(renewed)) return true;
  return renewed + (spec.leaseDurationSeconds ?? 0) * 1000 < now.getTime();
}
