import { join } from 'node:path';
import type { Logger } from '../../platform/log.js';
import type { Db } from './db.js';
import type { PgliteOptions } from './pglite.js';
import { openPostgres } from './postgres.js';
import { migrate } from './migrations.js';
import { AuditRepository } from './audit.js';
import { ClientRepository } from './clients.js';
import { ApprovalRepository } from './approvals.js';
import { ToolPinRepository } from './tool-pins.js';
import { A2aTaskRepository } from './a2a-tasks.js';
import { A2aPushRepository } from './a2a-push.js';
import { BudgetLedgerRepository } from './budget-ledger.js';
import { ContextRepository } from './contexts.js';
import { PlanRepository } from './plans.js';
import { LastGoodPolicyRepository } from './last-good-policies.js';

export type { Db, Queryable } from './db.js';
export { StoreError, withTimeout } from './db.js';
export { migrate, MIGRATIONS, type Migration } from './migrations.js';
/**
 * The embedded database (pglite.ts). NB: loaded on first use: a process on PostgreSQL never loads PGlite, nor its
 * WebAssembly build.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  return (await import('./pglite.js')).openPglite(options);
}
export { openPostgres } from './postgres.js';
export { newId } from './ids.js';
export { ClientRepository, hashApiKey, mintApiKey, type ClientRecord } from './clients.js';
export { ToolPinRepository } from './tool-pins.js';
export {
  A2aTaskRepository,
  type A2aTaskFilter,
  type A2aTaskPage,
  type A2aTaskScope,
  type StoredA2aTask,
} from './a2a-tasks.js';
export { A2A_TASK_EVENT, A2aPushRepository, PushConfigLimitError, type A2aPushConfigInput } from './a2a-push.js';
export { ApprovalRepository, type ApprovalRecord, type ApprovalRefusal, type ApprovalState } from './approvals.js';
export { ContextRepository, type PrecheckContext } from './contexts.js';
export { PrecheckResultsRepository, type PrecheckResultsInput } from './precheck-results.js';
export { AuditRepository, type AuditEntry, type AuditInput } from './audit.js';
export {
  AUDIT_WINDOWS,
  type AgentLatency,
  type AuditBucket,
  type AuditFilter,
  type AuditPage,
  type AuditScope,
  type AuditSummary,
  type AuditWindow,
} from './audit-query.js';
export {
  PlanRepository,
  type PlanEnd,
  type PlanRecord,
  type PlanStart,
  type PlanStatus,
  type PlanWaiting,
} from './plans.js';
export { LastGoodPolicyRepository } from './last-good-policies.js';
export {
  BudgetLedgerRepository,
  type Amount,
  type LedgerCharge,
  type LedgerSpend,
  type LedgerTotals,
} from './budget-ledger.js';

/** The operational store: one database, migrated, with its repositories. */
export interface Store {
  readonly db: Db;
  readonly clients: ClientRepository;
  readonly contexts: ContextRepository;
  readonly audit: AuditRepository;
  readonly plans: PlanRepository;
  /** The last good version of each Policy, for the policy engine's `lastGood` option. */
  readonly lastGoodPolicies: LastGoodPolicyRepository;
  /** The budget ledgers: reservations and spend per window (runtime/budgets). */
  readonly budgets: BudgetLedgerRepository;
  /** Approvals of parked MCP tool calls (docs/approvals.md). */
  readonly approvals: ApprovalRepository;
  /** Pinned tool definitions of mcp connectors (docs/connectors.md). */
  readonly toolPins: ToolPinRepository;
  /** A2A tasks, private to the client and agent card that created them (runtime/a2a). */
  readonly a2aTasks: A2aTaskRepository;
  /** A2A push notification configs, each a webhook registration of its own (runtime/a2a/push.ts). */
  readonly a2aPush: A2aPushRepository;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL URL; absent: PGlite in `dataDir` (or memory when dataDir is absent too). */
  databaseUrl?: string;
  dataDir?: string;
  schema?: string;
  /** Progress of slow steps (creating the embedded database). */
  log?: Pick<Logger, 'info' | 'warn'>;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const db = options.databaseUrl
    ? await openPostgres({ url: options.databaseUrl, schema: options.schema })
    : await openPglite({ dataDir: options.dataDir ? join(options.dataDir, 'pglite') : undefined, log: options.log });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return storeOn(db);
}

export function storeOn(db: Db): Store {
  return {
    db,
    clients: new ClientRepository(db),
    contexts: new ContextRepository(db, db.relaxed),
    audit: new AuditRepository(db),
    plans: new PlanRepository(db),
    lastGoodPolicies: new LastGoodPolicyRepository(db),
    budgets: new BudgetLedgerRepository(db.relaxed),
    approvals: new ApprovalRepository(db),
    toolPins: new ToolPinRepository(db),
    a2aTasks: new A2aTaskRepository(db),
    a2aPush: new A2aPushRepository(db),
    close: () => db.close(),
  };
}
