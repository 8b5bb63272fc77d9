/**
 * What a budget tells people: a threshold crossed (`budget.threshold`) or a call it refused or let past its limit
 * (`budget.exceeded`), each once per window — the ledger's `fired` marks decide which replica tells, so two
 * gateways never both do. Each is logged, queued as signed webhook deliveries of the call's organization (the
 * orchestrator's delivery worker sends them, from the same table as plan events) and, in a cluster, recorded as a
 * Kubernetes Event on the Budget.
 */
import type { Logger } from '../../platform/log.js';
import type { LedgerSpend } from '../store/index.js';
import type { BudgetCall, MatchedBudget } from './catalogue.js';
import type { WindowSpan } from './windows.js';

/** The ledger mark of `budget.exceeded` (thresholds are 1–100). */
const EXCEEDED_MARK = 0;

export type BudgetEvent = 'budget.threshold' | 'budget.exceeded';

export interface BudgetAlerts {
  /** A blocking budget refused a call, or a warn budget let one past its limit. */
  exceeded(m: MatchedBudget, span: WindowSpan, call: BudgetCall): void;
  /** A settle crossed `percent` of a limit (already marked fired by the caller). */
  threshold(m: MatchedBudget, span: WindowSpan, percent: number, after: LedgerSpend, call: BudgetCall): void;
}

export interface BudgetAlertOptions {
  log: Logger;
  /** Marks a ledger's bucket: true for the one caller that marked it first. */
  markFired(ledger: string, bucket: Date, mark: number): Promise<boolean>;
  /** Queues the webhook deliveries of an organization's registrations that subscribe to `event`. */
  webhooks?: (
    source: { organizationId: string; tenantId?: string },
    event: BudgetEvent,
    payload: unknown,
    /** Deliveries of one key go out in order: the ledger's. */
    orderKey: string,
  ) => Promise<unknown>;
  /** Records a Kubernetes Event on the Budget (cluster mode). */
  kubeEvent?: (budget: { name: string; namespace: string }, reason: string, message: string) => Promise<unknown>;
  now?: () => Date;
}

export class BudgetAlertFanout implements BudgetAlerts {
  private readonly now: () => Date;

  constructor(private readonly o: BudgetAlertOptions) {
    this.now = o.now ?? (() => new Date());
  }

  exceeded(m: MatchedBudget, span: WindowSpan, call: BudgetCall): void {
    void this.o
      .markFired(m.ledger, span.bucket, EXCEEDED_MARK)
      .then((first) => {
        if (!first) return;
        const message = `budget ${m.ledger} reached its limit in the window ending ${span.resetsAt.toISOString()} (action ${m.spec.action})`;
        return this.tell('budget.exceeded', 'BudgetExceeded', m, span, call, message, {});
      })
      .catch((err: unknown) => this.o.log.warn({ err, budget: m.ledger }, 'budget.exceeded not told'));
  }

  threshold(m: MatchedBudget, span: WindowSpan, percent: number, after: LedgerSpend, call: BudgetCall): void {
    const message = `budget ${m.ledger} passed ${percent}% of its limit in the window ending ${span.resetsAt.toISOString()}`;
    void this.tell('budget.threshold', 'BudgetThreshold', m, span, call, message, {
      percent,
      spent: { usd: after.spentMicros / 1_000_000, tokens: after.spentTokens },
    }).catch((err: unknown) => this.o.log.warn({ err, budget: m.ledger }, 'budget.threshold not told'));
  }

  private async tell(
    event: BudgetEvent,
    reason: string,
    m: MatchedBudget,
    span: WindowSpan,
    call: BudgetCall,
    message: string,
    extra: Record<string, unknown>,
  ): Promise<void> {
    this.o.log.warn({ budget: m.ledger, event, organizationId: call.organizationId, ...extra }, message);
    const data = {
      budget: m.name,
      namespace: m.namespace,
      ledger: m.ledger,
      limit: m.spec.limit,
      action: m.spec.action,
      window_start: span.from.toISOString(),
      window_ends: span.resetsAt.toISOString(),
      ...extra,
    };
    const payload = { event, timestamp: this.now().toISOString(), data };
    await Promise.all([
      this.o.webhooks?.(
        { organizationId: call.organizationId, tenantId: call.tenantId },
        event,
        payload,
        `budget:${m.ledger}`,
      ),
      this.o.kubeEvent?.({ name: m.name, namespace: m.namespace }, reason, message),
    ]);
  }
}
