/**
 * The Budgets of a source (api/budget.ts), as a governed call reads them: which budgets charge one call, and the
 * ledger each one charges (the Budget's own, or with `spec.each` one per value). On every governed call, so the
 * documents are re-read only after the source reported a Budget change, and a call with no Budget in the source
 * costs one comparison.
 *
 * Semantics (docs/budgets.md): every `spec.scope` field given must equal the call's value, and a call without that
 * value does not match; an empty scope matches every call. A call is charged to every budget that matches it.
 */
import type { BudgetResource, BudgetSpec } from '../../api/index.js';
import { DEFAULT_NAMESPACE, type DeclarativeSource } from '../source/index.js';

/** What a budget can match of a call; the identity fields come from the verified credential only. */
export interface BudgetCall {
  organizationId: string;
  tenantId?: string;
  /** The API client id. */
  clientId?: string;
  /** The AgentConfig a plan step runs as. */
  agent?: string;
  provider?: string;
  model?: string;
}

/** A budget that charges a call, and the ledger it charges. */
export interface MatchedBudget {
  name: string;
  namespace: string;
  spec: BudgetSpec;
  /** `namespace/name`, or `namespace/name#value` with `spec.each`. */
  ledger: string;
}

const NONE: readonly MatchedBudget[] = Object.freeze([]);

const FIELD: Record<keyof BudgetSpec['scope'], keyof BudgetCall> = {
  organization: 'organizationId',
  tenant: 'tenantId',
  client: 'clientId',
  agent: 'agent',
  provider: 'provider',
  model: 'model',
};

/** The budgets of a source; `match(call)` per governed call. `close()` stops listening to the source. */
export class BudgetCatalogue {
  private docs: readonly BudgetResource[] = [];
  private version = 0;
  private built = -1;
  private readonly unsubscribe: () => void;

  constructor(private readonly source: DeclarativeSource) {
    this.unsubscribe = source.subscribe((events) => {
      for (const e of events) if (e.resource.kind === 'Budget') return void this.version++;
    });
  }

  /** Every budget that charges `call`, sorted by ledger (the order ledgers are locked in). */
  match(call: BudgetCall): readonly MatchedBudget[] {
    const docs = this.list();
    if (docs.length === 0) return NONE;
    let out: MatchedBudget[] | undefined;
    for (const doc of docs) {
      const ledger = ledgerOf(doc, call);
      if (ledger === undefined) continue;
      (out ??= []).push({ name: doc.metadata.name, namespace: namespaceOf(doc), spec: doc.spec, ledger });
    }
    return out ? out.sort((a, b) => (a.ledger < b.ledger ? -1 : a.ledger > b.ledger ? 1 : 0)) : NONE;
  }

  /** Every Budget, in namespace and name order. */
  list(): readonly BudgetResource[] {
    if (this.built !== this.version) {
      this.built = this.version;
      this.docs = this.source
        .list('Budget')
        .slice()
        .sort((a, b) => compare(namespaceOf(a), namespaceOf(b)) || compare(a.metadata.name, b.metadata.name));
    }
    return this.docs;
  }

  close(): void {
    this.unsubscribe();
  }
}

/** The ledger a budget charges for a call, or undefined when its scope does not match the call. */
function ledgerOf(doc: BudgetResource, call: BudgetCall): string | undefined {
  const { scope, each } = doc.spec;
  for (const key of Object.keys(scope) as (keyof BudgetSpec['scope'])[]) {
    const want = scope[key];
    if (want !== undefined && call[FIELD[key]] !== want) return undefined;
  }
  const base = budgetLedger(doc);
  if (each === undefined) return base;
  const value = call[FIELD[each]];
  // NB: a call without the value a budget keeps ledgers per (no tenant) is not charged to it.
  return value === undefined || value === '' ? undefined : `${base}#${value}`;
}

/** A Budget's ledger key (the prefix of its per-value ledgers with `spec.each`). */
export function budgetLedger(doc: { metadata: { name: string; namespace?: string } }): string {
  return `${namespaceOf(doc)}/${doc.metadata.name}`;
}

function namespaceOf(doc: { metadata: { namespace?: string } }): string {
  return doc.metadata.namespace ?? DEFAULT_NAMESPACE;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
