/**
 * The events a webhook can subscribe to: the reference's three plan events, and the budgets' (runtime/budgets/alerts.ts,
 * queued by the gateway or the orchestrator that saw the threshold crossed).
 */
export const WEBHOOK_EVENTS = [
  'plan.completed',
  'plan.failed',
  'step.completed',
  'budget.threshold',
  'budget.exceeded',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * What the plan surface calls when a plan or a step ends. `emit` resolves once a delivery row per subscribed,
 * active registration of the organization that hears of `tenantId`'s plans (organization-wide ones, and the
 * tenant's own) is committed; the sending happens later (at least once, in order per plan). `data.planId` is the
 * order key. Never pass the caller's body here for the organization or tenant: use the verified identity.
 */
export interface WebhookEmitter {
  emit(organizationId: string, event: WebhookEvent, data: Record<string, unknown>, tenantId?: string): Promise<void>;
}
