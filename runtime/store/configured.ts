import type { Logger } from '../../platform/log.js';
import { databaseFailure, embeddedDatabaseFailure } from '../../platform/startup-error.js';
import { openStore, type Store } from './index.js';

/**
 * The store a process's settings name: PostgreSQL at DATABASE_URL, else PGlite in STEWARD_DATA_DIR. A failure is
 * a StartupError naming the setting to fix.
 */
export async function openConfiguredStore(
  config: { DATABASE_URL?: string; STEWARD_DATA_DIR: string },
  log: Logger,
): Promise<Store> {
  try {
    return await openStore({ databaseUrl: config.DATABASE_URL, dataDir: config.STEWARD_DATA_DIR, log });
  } catch (err) {
    throw config.DATABASE_URL
      ? databaseFailure(err, config.DATABASE_URL)
      : embeddedDatabaseFailure(err, config.STEWARD_DATA_DIR);
  }
}
