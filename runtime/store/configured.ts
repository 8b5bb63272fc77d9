import type { Logger } from '../../platform/log.js';
import { databaseFailure, embeddedDatabaseFailure } from '../../platform/startup-error.js';
import type { StoreSettings } from '../settings.js';
import { openStore, type Store } from './index.js';

/**
 * The store a process's settings name: PostgreSQL at DATABASE_URL, else PGlite in STEWARD_DATA_DIR. A failure is
 * a StartupError naming the setting to fix.
 */
export async function openConfiguredStore(config: StoreSettings, log: Logger): Promise<Store> {
  try {
    return await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  } catch (err) {
    throw config.databaseUrl ? databaseFailure(err, config.databaseUrl) : embeddedDatabaseFailure(err, config.dataDir);
  }
}
