/**
 * A standalone process for end-to-end tests: free ports, its own data folder, manifests written from the test,
 * rate limits out of the way; `close()` stops it and removes the folder.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { standaloneSettings } from '../cmd/config/settings.js';
import { createLogger } from '../platform/log.js';
import { startStandalone, type Standalone } from '../runtime/standalone/main.js';

export interface TestStandalone {
  app: Standalone;
  /** `http://127.0.0.1:<port>` of the gateway and of the orchestrator. */
  gateway: string;
  orchestrator: string;
  /** The test's folder: `data/` (STEWARD_DATA_DIR) and, with manifests, `manifests/`. */
  dir: string;
  close(): Promise<void>;
}

export interface TestStandaloneOptions {
  /** More settings (they win over the defaults); a function gets the test's folder (files a setting names). */
  env?: Record<string, string> | ((dir: string) => Record<string, string>);
  /** Copy config/samples into the manifest folder first. @default false: the process's default folder */
  samples?: boolean;
  /** Manifest files to write into the manifest folder, by file name. */
  manifests?: Record<string, string>;
  /** The environment manifests read `fromEnv` values from (startStandalone's third argument). */
  processEnv?: Record<string, string | undefined>;
}

export async function startTestStandalone(o: TestStandaloneOptions = {}): Promise<TestStandalone> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-standalone-'));
  try {
    const own = o.samples || o.manifests;
    if (o.samples) await cp('config/samples', join(dir, 'manifests'), { recursive: true });
    else if (own) await mkdir(join(dir, 'manifests'));
    for (const [name, yaml] of Object.entries(o.manifests ?? {})) await writeFile(join(dir, 'manifests', name), yaml);
    const config = standaloneSettings({
      STEWARD_GATEWAY_PORT: '0',
      STEWARD_ORCHESTRATOR_PORT: '0',
      STEWARD_DATA_DIR: join(dir, 'data'),
      ...(own ? { STEWARD_MANIFESTS: join(dir, 'manifests') } : {}),
      STEWARD_WATCH_MANIFESTS: 'false',
      STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
      ...(typeof o.env === 'function' ? o.env(dir) : o.env),
    });
    const app = await startStandalone(config, createLogger({ level: 'silent' }), o.processEnv ?? {});
    const url = (which: 'gateway' | 'orchestrator') =>
      `http://127.0.0.1:${(app[which].server.address() as { port: number }).port}`;
    return {
      app,
      gateway: url('gateway'),
      orchestrator: url('orchestrator'),
      dir,
      close: async () => {
        await app.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
