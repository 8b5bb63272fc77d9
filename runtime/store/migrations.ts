import type { Db } from './db.js';
import { AUDIT_CHAIN_SQL } from './audit-chain-sql.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Versioned, append-only. Never edit a released migration; add the next version.
 * Timestamps are timestamptz; JSON is jsonb; ids are text (prefixed random ids made by the app).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'operational tables',
    sql: `
CREATE TABLE clients (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  tenant_id text,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  api_key_hash text NOT NULL UNIQUE,
  api_key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX clients_org_idx ON clients (organization_id, created_at);

CREATE TABLE precheck_contexts (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  client_id text NOT NULL,
  user_token text NOT NULL,
  query_sha256 text NOT NULL,
  approved boolean NOT NULL,
  policies jsonb NOT NULL DEFAULT '[]',
  block_reason text,
  warnings jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX precheck_contexts_expiry_idx ON precheck_contexts (expires_at);

CREATE TABLE audit_entries (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  client_id text NOT NULL,
  context_id text REFERENCES precheck_contexts (id) ON DELETE SET NULL,
  user_token text,
  provider text,
  model text,
  prompt text,
  response text,
  latency_ms double precision,
  prompt_tokens integer,
  completion_tokens integer,
  total_tokens integer,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_entries_org_idx ON audit_entries (organization_id, created_at);
CREATE INDEX audit_entries_context_idx ON audit_entries (context_id);

CREATE TABLE webhooks (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  url text NOT NULL,
  events jsonb NOT NULL,
  secret text,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_org_idx ON webhooks (organization_id);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  response_status integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_at);

CREATE TABLE plans (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  user_context jsonb NOT NULL DEFAULT '{}',
  query text NOT NULL,
  domain text,
  execution_mode text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  steps jsonb NOT NULL DEFAULT '[]',
  result text,
  error text,
  execution_time_ms integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX plans_org_idx ON plans (organization_id, created_at);
`,
  },
  {
    // Every pre-check inserts a context row and every audit call an entry: what PostgreSQL spends per row
    // decides how much of the machine the database takes from the gateway (docs/benchmarks.md).
    version: 2,
    name: 'cheaper context and audit inserts',
    sql: `
-- Random ids compared byte by byte: a B-tree insert under the database's default collation (C.UTF-8,
-- en_US, ...) calls strcoll for every comparison on the way down; "C" compares with memcmp.
ALTER TABLE precheck_contexts ALTER COLUMN id TYPE text COLLATE "C";
ALTER TABLE audit_entries ALTER COLUMN id TYPE text COLLATE "C";
ALTER TABLE audit_entries ALTER COLUMN context_id TYPE text COLLATE "C";
-- Contexts arrive in expiry order (creation time plus one TTL): a block-range index serves the purge's
-- range scan at a fraction of a B-tree's upkeep per insert.
DROP INDEX precheck_contexts_expiry_idx;
CREATE INDEX precheck_contexts_expiry_brin ON precheck_contexts USING brin (expires_at);
`,
  },
  {
    // The plan surface (issue 20): who ran a plan (tenant, client), which planner made it, the answer as sent
    // (GET /api/v1/plan/{id} repeats it), and plans cancelled while running.
    version: 3,
    name: 'plan records',
    sql: `
ALTER TABLE plans DROP CONSTRAINT plans_status_check;
ALTER TABLE plans ADD CONSTRAINT plans_status_check CHECK (status IN ('running', 'completed', 'failed', 'cancelled'));
ALTER TABLE plans ADD COLUMN tenant_id text;
ALTER TABLE plans ADD COLUMN client_id text;
ALTER TABLE plans ADD COLUMN workflow_execution_id text;
ALTER TABLE plans ADD COLUMN planner text;
ALTER TABLE plans ADD COLUMN response jsonb;
`,
  },
  {
    // Durable webhook delivery (docs/orchestrator-registry.md, Webhooks): a per-plan order key and sequence, a
    // claim lease so that one worker sends a row at a time (a crashed worker's rows come back when it expires),
    // and one row per attempt.
    version: 4,
    name: 'webhook delivery order, leases and attempts',
    sql: `
ALTER TABLE webhook_deliveries ADD COLUMN organization_id text NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN order_key text NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN seq bigserial;
ALTER TABLE webhook_deliveries ADD COLUMN locked_until timestamptz;
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (webhook_id, order_key, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at);

CREATE TABLE webhook_delivery_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms double precision NOT NULL,
  response_status integer,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
`,
  },
  {
    // Tenancy of webhook registrations (runtime/auth/scope.ts): NULL is organization-wide. And one LLM-call audit
    // entry per pre-check context: the time the context's entry was claimed, set at insert for the contexts of
    // governed calls (the gateway writes their entries itself).
    version: 5,
    name: 'webhook tenants, one LLM-call audit per context',
    sql: `
ALTER TABLE webhooks ADD COLUMN tenant_id text;
ALTER TABLE precheck_contexts ADD COLUMN llm_call_recorded_at timestamptz;
`,
  },
  {
    // The last version of each Policy that compiled (docs/adr/0016-policy-last-good-and-wasm.md): what a runtime
    // keeps in force when the Policy's current version does not compile, across restarts. One row per Policy,
    // written by every replica (an idempotent upsert), removed with the Policy.
    version: 6,
    name: 'last good policy versions',
    sql: `
CREATE TABLE policy_last_good (
  namespace text NOT NULL,
  name text NOT NULL,
  generation bigint NOT NULL,
  resource_version text,
  uid text,
  hash text NOT NULL,
  document jsonb NOT NULL,
  bundle bytea,
  stored_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, name)
);
`,
  },
  {
    // The policy reports (runtime/policy/reports, docs/policy-reports.md): each pre-check's policy facts in a table
    // that outlives its context (contexts may be purged at expiry), and a time index on audit entries for the count
    // over every organization (the Policy.status writer). Both block-range indexes: rows arrive in time order, and
    // a BRIN costs an insert almost nothing (the pre-check and audit writes are the hot paths).
    version: 7,
    name: 'policy report sources',
    sql: `
CREATE TABLE precheck_policy_results (
  context_id text COLLATE "C" NOT NULL,
  organization_id text NOT NULL,
  tenant_id text,
  client_id text NOT NULL,
  policies_evaluated jsonb NOT NULL DEFAULT '[]',
  policy_results jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL
);
CREATE INDEX precheck_policy_results_created_brin ON precheck_policy_results USING brin (created_at);
CREATE INDEX audit_entries_created_brin ON audit_entries USING brin (created_at);
`,
  },
  {
    // Budgets (issue 35, docs/budgets.md, ADR 0018): each ledger (a Budget, or one value of its spec.each) keeps its
    // spend in buckets (a calendar window's start, or an hour of a rolling window) and its calls in flight as
    // reservations. Reserving and settling are single calls of the functions below: one round trip, atomic across
    // replicas (the current bucket's row lock serialises the calls of one ledger, and only them).
    version: 8,
    name: 'budget ledgers',
    sql: `
CREATE TABLE budget_buckets (
  ledger text COLLATE "C" NOT NULL,
  bucket timestamptz NOT NULL,
  spent_micros bigint NOT NULL DEFAULT 0,
  spent_tokens bigint NOT NULL DEFAULT 0,
  reserved_micros bigint NOT NULL DEFAULT 0,
  reserved_tokens bigint NOT NULL DEFAULT 0,
  fired smallint[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (ledger, bucket)
);
CREATE TABLE budget_reservations (
  id text COLLATE "C" NOT NULL,
  ledger text COLLATE "C" NOT NULL,
  bucket timestamptz NOT NULL,
  window_from timestamptz NOT NULL,
  micros bigint NOT NULL,
  tokens bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (id, ledger)
);
CREATE INDEX budget_reservations_expires ON budget_reservations (expires_at);

-- Reserves one call's worst case on every ledger given (sorted by the caller: locks are taken in that order), or on
-- none when a blocking ledger cannot hold it. Returns each ledger's window totals, this call's reservation included
-- when it was made, and whether the call fits that ledger's limits.
CREATE FUNCTION steward_budget_reserve(
  p_id text, p_ledgers text[], p_buckets timestamptz[], p_froms timestamptz[],
  p_limit_micros bigint[], p_limit_tokens bigint[], p_block boolean[],
  p_micros bigint, p_tokens bigint, p_expires timestamptz)
RETURNS TABLE (ledger text, spent_micros bigint, spent_tokens bigint, reserved_micros bigint, reserved_tokens bigint, fits boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  n int := coalesce(array_length(p_ledgers, 1), 0);
  refused boolean := false;
  sm bigint[]; st bigint[]; rm bigint[]; rt bigint[]; ok boolean[];
  a bigint; b bigint; c bigint; d bigint;
BEGIN
  FOR i IN 1..n LOOP
    -- NB: one statement creates the current bucket or locks it, and reads it.
    INSERT INTO budget_buckets AS k (ledger, bucket) VALUES (p_ledgers[i], p_buckets[i])
      ON CONFLICT (ledger, bucket) DO UPDATE SET ledger = k.ledger
      RETURNING k.spent_micros, k.spent_tokens, k.reserved_micros, k.reserved_tokens INTO a, b, c, d;
    IF p_froms[i] < p_buckets[i] THEN
      -- a rolling window: the hours before the current one count too
      SELECT a + coalesce(sum(k.spent_micros), 0), b + coalesce(sum(k.spent_tokens), 0),
             c + coalesce(sum(k.reserved_micros), 0), d + coalesce(sum(k.reserved_tokens), 0)
        INTO a, b, c, d
        FROM budget_buckets k
        WHERE k.ledger = p_ledgers[i] AND k.bucket >= p_froms[i] AND k.bucket < p_buckets[i];
    END IF;
    sm[i] := a; st[i] := b; rm[i] := c; rt[i] := d;
    ok[i] := (p_limit_micros[i] IS NULL OR a + c + p_micros <= p_limit_micros[i])
         AND (p_limit_tokens[i] IS NULL OR b + d + p_tokens <= p_limit_tokens[i]);
    IF NOT ok[i] AND p_block[i] THEN refused := true; END IF;
  END LOOP;
  IF NOT refused THEN
    FOR i IN 1..n LOOP
      UPDATE budget_buckets k
        SET reserved_micros = k.reserved_micros + p_micros, reserved_tokens = k.reserved_tokens + p_tokens
        WHERE k.ledger = p_ledgers[i] AND k.bucket = p_buckets[i];
      INSERT INTO budget_reservations (id, ledger, bucket, window_from, micros, tokens, expires_at)
        VALUES (p_id, p_ledgers[i], p_buckets[i], p_froms[i], p_micros, p_tokens, p_expires);
      rm[i] := rm[i] + p_micros; rt[i] := rt[i] + p_tokens;
    END LOOP;
  END IF;
  FOR i IN 1..n LOOP
    ledger := p_ledgers[i]; spent_micros := sm[i]; spent_tokens := st[i];
    reserved_micros := rm[i]; reserved_tokens := rt[i]; fits := ok[i];
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Settles a call: its reservations are released and what it spent is charged, once (a second settle, or one after
-- the reservation expired, finds nothing). Returns each ledger's window spend after the charge.
CREATE FUNCTION steward_budget_settle(p_id text, p_micros bigint, p_tokens bigint)
RETURNS TABLE (ledger text, bucket timestamptz, spent_micros bigint, spent_tokens bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  r record;
BEGIN
  FOR r IN DELETE FROM budget_reservations k WHERE k.id = p_id
           RETURNING k.ledger, k.bucket, k.window_from, k.micros, k.tokens LOOP
    UPDATE budget_buckets k
      SET reserved_micros = greatest(0, k.reserved_micros - r.micros),
          reserved_tokens = greatest(0, k.reserved_tokens - r.tokens),
          spent_micros = k.spent_micros + p_micros,
          spent_tokens = k.spent_tokens + p_tokens
      WHERE k.ledger = r.ledger AND k.bucket = r.bucket;
    ledger := r.ledger; bucket := r.bucket;
    SELECT coalesce(sum(k.spent_micros), 0), coalesce(sum(k.spent_tokens), 0) INTO spent_micros, spent_tokens
      FROM budget_buckets k WHERE k.ledger = r.ledger AND k.bucket >= r.window_from AND k.bucket <= r.bucket;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Reservations of calls that never settled (a crashed replica): charged in full, since the call may have reached
-- its provider. Returns how many were charged; replicas may run it together (SKIP LOCKED).
CREATE FUNCTION steward_budget_expire(p_now timestamptz, p_max integer)
RETURNS integer
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  r record;
  n integer := 0;
BEGIN
  FOR r IN DELETE FROM budget_reservations k
           WHERE (k.id, k.ledger) IN (SELECT e.id, e.ledger FROM budget_reservations e
                                      WHERE e.expires_at <= p_now LIMIT p_max FOR UPDATE SKIP LOCKED)
           RETURNING k.ledger, k.bucket, k.micros, k.tokens LOOP
    UPDATE budget_buckets k
      SET reserved_micros = greatest(0, k.reserved_micros - r.micros),
          reserved_tokens = greatest(0, k.reserved_tokens - r.tokens),
          spent_micros = k.spent_micros + r.micros,
          spent_tokens = k.spent_tokens + r.tokens
      WHERE k.ledger = r.ledger AND k.bucket = r.bucket;
    n := n + 1;
  END LOOP;
  RETURN n;
END
$fn$;
`,
  },
  {
    // The hash-chained audit log (issue 36, docs/audit-evidence.md): one chain per organization. The writer computes
    // each row's digest (SHA-256 of its RFC 8785 canonical JSON, runtime/store/audit.ts); this trigger links it to
    // the organization's chain under the chain head's row lock, so an organization's rows are sequenced across
    // replicas without serialising other organizations'. Rows written before this migration stay unchained.
    version: 9,
    name: 'audit hash chains',
    sql: AUDIT_CHAIN_SQL,
  },
  {
    // Approvals of MCP tool calls (issue 37, docs/approvals.md): roles on API keys (`approver` first), and one row
    // per parked call, bound to the hash of the exact call and to its caller, single-use, expiring.
    version: 10,
    name: 'roles and approvals',
    sql: `
ALTER TABLE clients ADD COLUMN roles text[] NOT NULL DEFAULT '{}';
CREATE TABLE approvals (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  tenant_id text,
  requested_by text NOT NULL,
  call_hash text NOT NULL,
  connector text NOT NULL,
  tool text NOT NULL,
  arguments jsonb NOT NULL,
  policies jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'used')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  decided_by text,
  decided_at timestamptz,
  comment text,
  used_at timestamptz
);
CREATE INDEX approvals_pending ON approvals (organization_id, state, created_at);
ALTER TABLE plans ADD COLUMN waiting jsonb;
`,
  },
  {
    // Pinned tool definitions of mcp connectors (issue 37, docs/connectors.md): one row per Connector, shared by
    // every gateway replica; a write replaces the row only while its digest is the one the writer read.
    version: 11,
    name: 'tool pins',
    sql: `
CREATE TABLE tool_pins (
  connector text PRIMARY KEY,
  digest text NOT NULL,
  tools jsonb NOT NULL,
  pinned_at timestamptz NOT NULL,
  pinned_by text NOT NULL CHECK (pinned_by IN ('first-use', 'annotation', 'new-tool'))
);
`,
  },
  {
    // A2A tasks (runtime/a2a), stored like plans: one row per task, private to the client that created it on one
    // agent card; \`task\` is the task in A2A's wire JSON, the other columns are what tasks are found and listed by.
    version: 12,
    name: 'a2a tasks',
    sql: `
CREATE TABLE a2a_tasks (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  tenant_id text,
  owner text NOT NULL,
  agent text NOT NULL,
  context_id text NOT NULL,
  state text NOT NULL,
  task jsonb NOT NULL,
  status_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX a2a_tasks_list_idx ON a2a_tasks (organization_id, owner, agent, status_at DESC, id DESC);
`,
  },
  {
    // A2A push notification configs (runtime/a2a/push.ts): each is a webhook registration of its own (kind
    // \`a2a-push\`, hidden from /api/v1/webhooks), so the orchestrator's worker sends a task's updates to it signed,
    // retried and SSRF-checked like plan events; \`headers\` are what its deliveries carry besides Steward's (the
    // config's token). The config row holds the task's scope and the config in A2A's wire JSON.
    version: 13,
    name: 'a2a push configs',
    sql: `
ALTER TABLE webhooks ADD COLUMN kind text NOT NULL DEFAULT 'registration' CHECK (kind IN ('registration', 'a2a-push'));
ALTER TABLE webhooks ADD COLUMN headers jsonb;
CREATE TABLE a2a_push_configs (
  webhook_id text PRIMARY KEY REFERENCES webhooks (id) ON DELETE CASCADE,
  organization_id text NOT NULL,
  tenant_id text,
  owner text NOT NULL,
  agent text NOT NULL,
  task_id text NOT NULL,
  id text NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (task_id, id)
);
`,
  },
];

/** Advisory-lock key shared by every Steward process migrating the same database. */
export const MIGRATION_LOCK_KEY = 7_723_150_001;

export interface MigrationReport {
  applied: number[];
  current: number;
}

/**
 * Applies pending migrations under a session advisory lock, each in its own transaction, so that replicas
 * starting together migrate once and the rest wait.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  return db.session(async (s) => {
    await s.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await s.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await s.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((r) => Number(r.version)));
      const applied: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await s.query('BEGIN');
        try {
          await s.exec(m.sql);
          await s.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await s.query('COMMIT');
        } catch (err) {
          await s.query('ROLLBACK');
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
      }
      const current = Math.max(0, ...done, ...applied);
      return { applied, current };
    } finally {
      await s.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}
