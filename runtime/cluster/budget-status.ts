/**
 * `Budget.status`: each Budget's spend in its current window (`spent`, `reserved`, `remaining`, `windowEnds`, and
 * with spec.each `ledgers`), read from the ledgers in the database so that every gateway replica's calls are in it
 * (runtime/budgets/report.ts). One gateway replica writes it: the holder of the Lease `O-gateway-status` (the
 * connector-status and policy-report writers'). While it holds the Lease it reads every Budget of the namespace in
 * one query every `intervalMs`, and merge-patches the status of each Budget whose figures differ from what its status
 * shows, at most once per `intervalMs` per Budget: a change within the interval is written by the first reading
 * after it (so at most an interval late). `updatedAt` says when the figures were read. The operator writes the
 * conditions; the two never write the same field.
 */
import type { BudgetResource } from '../../api/index.js';
import { isoTimestamp } from '../../platform/iso-time.js';
import { jsonEqual, Resources, type KubeClient, type KubeObject } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import { budgetStates, type BudgetState } from '../budgets/report.js';
import type { BudgetLedgerRepository } from '../store/index.js';
import { LeaseStatusWriter } from './lease-status-writer.js';

/** The least time between two readings, and between two writes of one Budget. */
export const BUDGET_STATUS_INTERVAL_MS = 30_000;

export interface BudgetStatusWriterOptions {
  client: KubeClient;
  /** The Kubernetes source: the namespace's Budgets, and the objects as the server holds them. */
  source: {
    readonly namespace: string;
    list(kind: 'Budget'): readonly BudgetResource[];
    object(kind: 'Budget', name: string): KubeObject | undefined;
  };
  ledger: Pick<BudgetLedgerRepository, 'totals'>;
  /** How often the ledgers are read, and the least time between two writes of one Budget. @default 30s */
  intervalMs?: number;
  now?: () => Date;
  fieldManager?: string;
  log?: Logger;
}

/** The status fields this writer owns, as the status shows them (no nulls). */
interface Figures {
  spent: { usd?: number; tokens?: number };
  reserved: { usd?: number; tokens?: number };
  remaining: { usd?: number; tokens?: number };
  windowEnds: string;
  ledgers?: number;
}

const FIELDS = ['spent', 'reserved', 'remaining', 'windowEnds', 'ledgers'] as const;

type BudgetObject = KubeObject & { status?: Partial<Figures> & Record<string, unknown> };

export class BudgetStatusWriter {
  private readonly writer: LeaseStatusWriter<Figures>;

  constructor(opts: BudgetStatusWriterOptions) {
    const { source, ledger } = opts;
    this.writer = new LeaseStatusWriter<Figures>(
      {
        what: 'budget status',
        resource: Resources.Budget,
        async read(at) {
          // NB: only the Budgets that are objects of the namespace have a status to write.
          const budgets = { list: () => source.list('Budget').filter((b) => source.object('Budget', b.metadata.name)) };
          return (await budgetStates(budgets, ledger, at)).map((state) => [state.name, figuresOf(state)] as const);
        },
        object: (name) => source.object('Budget', name),
        shows(obj, figures) {
          const shown = (obj as BudgetObject).status ?? {};
          return FIELDS.every((k) => jsonEqual(figures[k], shown[k]));
        },
        patch: (obj, figures, at) => ({
          ...mergePatchOf(figures, (obj as BudgetObject).status ?? {}),
          updatedAt: isoTimestamp(at),
        }),
      },
      { ...opts, intervalMs: opts.intervalMs ?? BUDGET_STATUS_INTERVAL_MS },
    );
  }

  /** Status patches sent (tests, logs). */
  get writes(): number {
    return this.writer.writes;
  }

  /** Starts (true) or stops (false) reading and writing: the Lease's holder writes. */
  setLeading(leading: boolean): void {
    this.writer.setLeading(leading);
  }

  /** Reads the ledgers now and writes what changed (lease-status-writer.ts); the timer's work, tests call it. */
  read(): Promise<void> {
    return this.writer.run();
  }

  /** Stops for good; resolves once a reading in flight has ended. */
  close(): Promise<void> {
    return this.writer.close();
  }
}

/** The status fields of a state: amounts in the units the status schema has (tokens are integers). */
function figuresOf(s: BudgetState): Figures {
  return {
    spent: { usd: s.spent.usd, tokens: s.spent.tokens },
    reserved: { usd: s.reserved.usd, tokens: s.reserved.tokens },
    remaining: { ...s.remaining },
    windowEnds: isoTimestamp(s.windowEnds),
    ...(s.ledgers === undefined ? {} : { ledgers: s.ledgers }),
  };
}

/**
 * The merge patch that turns `shown` into `figures`: a field or amount unit the status shows and the figures no
 * longer have (a limit in dollars taken away, spec.each removed) is set to null, which a merge patch deletes.
 */
function mergePatchOf(figures: Figures, shown: Partial<Figures>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of FIELDS) {
    const want = figures[key];
    const had = shown[key];
    if (want === undefined) {
      if (had !== undefined) patch[key] = null;
    } else if (typeof want === 'object' && had !== null && typeof had === 'object') {
      const amount: Record<string, unknown> = { ...want };
      for (const unit of Object.keys(had)) if (!(unit in want)) amount[unit] = null;
      patch[key] = amount;
    } else patch[key] = want;
  }
  return patch;
}
