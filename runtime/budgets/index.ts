/**
 * Budgets (issue 35, docs/budgets.md, ADR 0018): spend limits in tokens and US dollars, reserved before the spend
 * and settled to what calls used, on ledgers in the store. `openBudgets` builds what a runtime that makes governed
 * calls needs (the gateway, the orchestrator): the gate of the governed pipeline, and the sweep that charges the
 * reservations of calls that never settled.
 */
import type { Logger } from '../../platform/log.js';
import { WebhookRepository } from '../orchestrator/webhooks/repository.js';
import type { BudgetSettings } from '../settings.js';
import type { DeclarativeSource } from '../source/index.js';
import type { Store } from '../store/index.js';
import { BudgetAlertFanout, type BudgetAlertOptions } from './alerts.js';
import { BudgetCatalogue } from './catalogue.js';
import { BudgetGate } from './gate.js';
import { PriceTable } from './prices.js';

export { BudgetCatalogue, budgetLedger, type BudgetCall, type MatchedBudget } from './catalogue.js';
export {
  BudgetExceededError,
  BudgetGate,
  budgetHeaders,
  type BudgetHold,
  type BudgetView,
  type Charge,
  type Spend,
} from './gate.js';
export { PriceTable, parseDefaultPrice, parseModelPrices, type ModelPrice } from './prices.js';

/** How often a runtime charges the reservations that expired. */
const SWEEP_INTERVAL_MS = 30_000;

export interface BudgetsOptions {
  source: DeclarativeSource;
  store: Pick<Store, 'db' | 'budgets'>;
  settings: BudgetSettings;
  log: Logger;
  now?: () => Date;
  /** Records a Kubernetes Event on a Budget (cluster mode). */
  kubeEvent?: BudgetAlertOptions['kubeEvent'];
}

export interface Budgets {
  gate: BudgetGate;
  catalogue: BudgetCatalogue;
  /** Charges the reservations that expired by now; returns how many. */
  sweep(): Promise<number>;
  close(): void;
}

export function openBudgets(o: BudgetsOptions): Budgets {
  const now = o.now ?? (() => new Date());
  const log = o.log.child({ module: 'budgets' });
  const catalogue = new BudgetCatalogue(o.source);
  const webhooks = new WebhookRepository(o.store.db);
  const alerts = new BudgetAlertFanout({
    log,
    now,
    markFired: (ledger, bucket, mark) => o.store.budgets.markFired(ledger, bucket, mark),
    webhooks: (source, event, payload, orderKey) => webhooks.enqueue(source, event, payload, orderKey, now()),
    ...(o.kubeEvent ? { kubeEvent: o.kubeEvent } : {}),
  });
  const gate = new BudgetGate({
    catalogue,
    ledger: o.store.budgets,
    prices: new PriceTable({
      ...(o.settings.modelPrices ? { overrides: o.settings.modelPrices } : {}),
      ...(o.settings.defaultModelPrice ? { defaultPrice: o.settings.defaultModelPrice } : {}),
    }),
    now,
    reservationTtlMs: o.settings.reservationTtlMs,
    log,
    alerts,
  });
  const sweep = async () => {
    // NB: nothing to charge without budgets; the query is cheap, but an idle installation makes none.
    if (catalogue.list().length === 0) return 0;
    const n = await o.store.budgets.expire(now());
    if (n) log.warn({ reservations: n }, 'budget reservations of calls that never settled were charged in full');
    return n;
  };
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => log.warn({ err }, 'budget reservation sweep failed'));
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    gate,
    catalogue,
    sweep,
    close() {
      clearInterval(timer);
      catalogue.close();
    },
  };
}
