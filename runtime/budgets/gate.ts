/**
 * Budgets enforced before the spend (issue 35, docs/budgets.md): at admission a call reserves its worst case — the
 * prompt's estimated tokens plus its token budget, at its model's price — on every ledger that charges it, in one
 * atomic round trip (runtime/store/budget-ledger.ts); a blocking budget that cannot hold it refuses the call (429
 * BUDGET_EXCEEDED) before it reaches the provider. When the call ends, its reservation is settled to what it used
 * (the provider's usage, or an estimate from the text), even when that is more than was reserved.
 */
import type { BudgetSpec } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { ApiError } from '../http/errors.js';
import type { LlmUsage } from '../llm/index.js';
import { newId, type BudgetLedgerRepository, type LedgerCharge, type LedgerTotals } from '../store/index.js';
import type { BudgetAlerts } from './alerts.js';
import type { BudgetCall, BudgetCatalogue, MatchedBudget } from './catalogue.js';
import type { PriceTable } from './prices.js';
import { budgetWindowOf } from './window-of.js';
import { windowSpan, type WindowSpan } from './windows.js';

export interface BudgetGateOptions {
  catalogue: BudgetCatalogue;
  ledger: Pick<BudgetLedgerRepository, 'reserve' | 'settle' | 'markFired'>;
  prices: PriceTable;
  now: () => Date;
  /** How long a reservation holds a call that never settles (its replica crashed); then it is charged in full. */
  reservationTtlMs: number;
  log: Logger;
  /** Threshold crossings and refusals (Events, webhooks); absent: logged only. */
  alerts?: BudgetAlerts;
}

/** What admission needs of a call. */
export interface BudgetAdmission extends BudgetCall {
  /** The text the call sends (its tokens are estimated at 4 characters each). */
  prompt: string;
  /** The answer's token budget (max_tokens, else the default). */
  maxTokens: number;
}

/** The answer's view of the deciding budget: the X-Budget-* headers. */
export interface BudgetView {
  budget: string;
  unit: 'usd' | 'tokens';
  limit: number;
  remaining: number;
  resetsAt: Date;
}

/** A call's reservation: settled once when the call ends. */
export interface BudgetHold {
  /** The deciding budget (the one with the least left). */
  readonly view: BudgetView;
  /** Warn-mode budgets the call exceeds, and a model without a price. */
  readonly warnings: readonly string[];
  /** Charges what the call used and releases the reservation (in the background; once). */
  settle(charge: Charge): void;
}

/** What a call used, by the model that answered. */
export interface Spend {
  provider: string;
  model: string;
  usage: Pick<LlmUsage, 'promptTokens' | 'completionTokens'>;
}

/** A spend priced once: its tokens, and its micro-dollars when the model has a price. */
export interface Charge {
  tokens: number;
  micros: number | undefined;
}

const MICROS = 1_000_000;

/** The deciding budget refused the call: 429 with the X-Budget-* headers and Retry-After (the window's reset). */
export class BudgetExceededError extends ApiError<'gateway'> {
  constructor(
    readonly view: BudgetView,
    requested: { usd?: number; tokens: number },
    now: Date,
  ) {
    const limit = view.unit === 'usd' ? `$${view.limit}` : `${view.limit} tokens`;
    super(
      'gateway',
      'BUDGET_EXCEEDED',
      `budget ${view.budget} cannot hold this call: ${formatAmount(view.unit, view.remaining)} of ${limit} left until ${view.resetsAt.toISOString()}, and the call reserves ${requested.usd === undefined || view.unit === 'tokens' ? `${requested.tokens} tokens` : `$${requested.usd}`} (prompt characters / 4 plus max_tokens, at the model's price)`,
      {
        budget: view.budget,
        unit: view.unit,
        limit: view.limit,
        remaining: view.remaining,
        requested,
        reset_at: view.resetsAt.toISOString(),
      },
      {
        headers: {
          ...budgetHeaders(view),
          'retry-after': String(Math.max(1, Math.ceil((view.resetsAt.getTime() - now.getTime()) / 1000))),
        },
      },
    );
    this.name = 'BudgetExceededError';
  }
}

/** The X-Budget-* headers of a view: amounts in the budget's unit (dollars to the micro-dollar), reset in epoch seconds. */
export function budgetHeaders(view: BudgetView): Record<string, string> {
  return {
    'x-budget-limit': String(view.limit),
    'x-budget-remaining': String(view.remaining),
    'x-budget-reset': String(Math.ceil(view.resetsAt.getTime() / 1000)),
    'x-budget-unit': view.unit,
  };
}

export class BudgetGate {
  constructor(private readonly o: BudgetGateOptions) {}

  /** What a spend is charged: its tokens, and its cost at the answering model's price (undefined: no price). */
  charge(spent: Spend): Charge {
    const { usage } = spent;
    return {
      tokens: Math.max(0, usage.promptTokens) + Math.max(0, usage.completionTokens),
      micros: this.o.prices.costMicros(spent.provider, spent.model, usage),
    };
  }

  /**
   * Reserves the call's worst case on every budget that charges it; undefined when none does. Throws
   * BudgetExceededError when a blocking budget cannot hold it (nothing is reserved then).
   */
  async admit(call: BudgetAdmission): Promise<BudgetHold | undefined> {
    const matched = this.o.catalogue.match(call);
    if (matched.length === 0) return undefined;
    const now = this.o.now();
    const provider = call.provider ?? 'default';
    const model = call.model ?? 'default';
    const tokens = Math.ceil(call.prompt.length / 4) + call.maxTokens;
    const micros = this.o.prices.costMicros(provider, model, {
      promptTokens: Math.ceil(call.prompt.length / 4),
      completionTokens: call.maxTokens,
    });
    const spans = matched.map((m) => windowSpan(budgetWindowOf(m.spec.window), now));
    const charges = matched.map((m, i): LedgerCharge => chargeOf(m, spans[i]!));
    const id = newId('bud');
    const totals = await this.o.ledger.reserve(
      id,
      charges,
      { micros: micros ?? 0, tokens },
      new Date(now.getTime() + this.o.reservationTtlMs),
    );
    const views = matched.map((m, i) => viewOf(m, totals[i]!, spans[i]!.resetsAt));
    const refusing = matched.findIndex((m, i) => m.spec.action === 'block' && !totals[i]!.fits);
    if (refusing >= 0) {
      const m = matched[refusing]!;
      // NB: the view of the refusal counts what the window holds without this call (it was not reserved).
      this.o.alerts?.exceeded(m, spans[refusing]!, call);
      throw new BudgetExceededError(
        views[refusing]!,
        { ...(micros === undefined ? {} : { usd: micros / MICROS }), tokens },
        now,
      );
    }
    const warnings: string[] = [];
    matched.forEach((m, i) => {
      if (totals[i]!.fits) return;
      warnings.push(`budget ${m.ledger}: this call goes past its limit (action warn)`);
      this.o.alerts?.exceeded(m, spans[i]!, call);
    });
    if (micros === undefined && matched.some((m) => m.spec.limit.usd !== undefined))
      warnings.push(`budget: no price for ${provider}/${model}; the call is charged in tokens only`);
    const view = views.reduce((a, b) => (share(b) < share(a) ? b : a));
    let settled = false;
    return {
      view,
      warnings,
      settle: (charge) => {
        if (settled) return;
        settled = true;
        void this.settle(id, call, matched, spans, charge);
      },
    };
  }

  private async settle(
    id: string,
    call: BudgetCall,
    matched: readonly MatchedBudget[],
    spans: readonly WindowSpan[],
    charge: Charge,
  ): Promise<void> {
    const { tokens } = charge;
    const micros = charge.micros ?? 0;
    try {
      const after = await this.o.ledger.settle(id, { micros, tokens });
      if (!this.o.alerts) return;
      for (const s of after) {
        const i = matched.findIndex((m) => m.ledger === s.ledger);
        if (i < 0) continue;
        const m = matched[i]!;
        for (const t of crossed(m.spec, { micros, tokens }, s)) {
          if (await this.o.ledger.markFired(s.ledger, s.bucket, t)) this.o.alerts.threshold(m, spans[i]!, t, s, call);
        }
      }
    } catch (err) {
      // NB: the reservation stays and is charged in full when it expires (the ledger's sweep).
      this.o.log.error(
        { err, reservation: id },
        'budget settle failed; the reservation will be charged when it expires',
      );
    }
  }
}

/** The thresholds (percent of a limit) that this charge crossed, in either unit. */
function crossed(
  spec: BudgetSpec,
  charged: { micros: number; tokens: number },
  after: { spentMicros: number; spentTokens: number },
): number[] {
  const out: number[] = [];
  const { usd, tokens } = spec.limit;
  for (const t of spec.thresholds) {
    const hit = (limit: number | undefined, now: number, added: number) =>
      limit !== undefined && now * 100 >= limit * t && (now - added) * 100 < limit * t;
    if (
      hit(usd === undefined ? undefined : usd * MICROS, after.spentMicros, charged.micros) ||
      hit(tokens, after.spentTokens, charged.tokens)
    )
      out.push(t);
  }
  return out;
}

function chargeOf(m: MatchedBudget, span: WindowSpan): LedgerCharge {
  const { usd, tokens } = m.spec.limit;
  return {
    ledger: m.ledger,
    bucket: span.bucket,
    from: span.from,
    ...(usd === undefined ? {} : { limitMicros: Math.round(usd * MICROS) }),
    ...(tokens === undefined ? {} : { limitTokens: tokens }),
    block: m.spec.action === 'block',
  };
}

/** A budget's view: the unit with the smaller share left (money when both are equal), after the reservation. */
function viewOf(m: MatchedBudget, t: LedgerTotals, resetsAt: Date): BudgetView {
  const { usd, tokens } = m.spec.limit;
  const leftMicros = usd === undefined ? undefined : Math.max(0, usd * MICROS - t.spentMicros - t.reservedMicros);
  const leftTokens = tokens === undefined ? undefined : Math.max(0, tokens - t.spentTokens - t.reservedTokens);
  const money =
    leftMicros !== undefined && (leftTokens === undefined || leftMicros / (usd! * MICROS) <= leftTokens / tokens!);
  return money
    ? { budget: m.ledger, unit: 'usd', limit: usd!, remaining: Math.floor(leftMicros) / MICROS, resetsAt }
    : { budget: m.ledger, unit: 'tokens', limit: tokens!, remaining: leftTokens!, resetsAt };
}

const share = (v: BudgetView) => v.remaining / v.limit;

function formatAmount(unit: 'usd' | 'tokens', n: number): string {
  return unit === 'usd' ? `$${n}` : `${n} tokens`;
}
