import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from '../embedded/database.js';
import { ConnectorError } from '../errors.js';
import { withTimeout } from '../limits.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import type { Connector, PreparedStatement, QueryResult } from '../types.js';
import { guardStatement, SqlConnectorBase, sqlResult } from './sql-common.js';

/** What a test may change of the embedded database; the Connector document sets nothing else. */
export type EmbeddedTuning = Omit<EmbeddedDatabaseOptions, 'name' | 'seed'>;

/**
 * A read-only SQL connector over an embedded PostgreSQL (PGlite, in memory) filled from the document's `spec.seed`:
 * data to query with no database server, such as the sample `demo-flights` that `npm start` serves. Statements take
 * the postgres kind's path: the SQL guard in the PostgreSQL dialect (read-only, forced LIMIT, function allowlist),
 * then one statement over the extended protocol; the database refuses writes on its own as well (embedded/worker.ts).
 * A call's timeout counts from the end of a start (which `startTimeoutMs` bounds on its own, as `connectTimeoutMs`
 * bounds a server connector's connect); a query that overruns stops the database, which the next call starts again
 * from the seed.
 */
export class PgliteConnector extends SqlConnectorBase implements Connector {
  private readonly db: EmbeddedDatabase;

  constructor(name: string, seed: string | undefined, options: ConnectorOptions, tuning: EmbeddedTuning = {}) {
    super(name, 'pglite', '', options);
    if (!seed)
      throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'spec.seed is required with type pglite', {
        connector: name,
      });
    if (!options.readOnly)
      throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'spec.options.readOnly: a pglite connector is read-only', {
        connector: name,
      });
    this.db = new EmbeddedDatabase({ ...tuning, name, seed, defaultSchema: options.defaultSchema });
  }

  /** Nothing to open: the database starts on the first query (embedded/database.ts). */
  override async connect(): Promise<void> {}

  protected ping(): Promise<unknown> {
    return this.db.ping();
  }

  prepare(statement: string, params: unknown): PreparedStatement {
    const { text, params: values, sql } = guardStatement(statement, params, 'postgresql', this.options);
    return { text, params: values, sql };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const started = performance.now();
    const call = this.db.run(prepared.text, prepared.params);
    try {
      await call.started;
      const res = await withTimeout(call.result, limits.timeoutMs, () => call.cancel());
      return sqlResult(res.rows, limits, started, prepared, { columns: res.columns });
    } catch (e) {
      throw this.fail(e, 'query');
    }
  }

  protected readonly product = 'embedded PostgreSQL';

  protected endPool(): Promise<void> {
    return this.db.close();
  }
}
