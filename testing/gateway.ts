/**
 * A real gateway for tests: PGlite (or PostgreSQL when asked), the built-in policy pack from config/policies,
 * License documents in a temp folder, minted keys — nothing faked but time and the LLM endpoint.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { issueLicenseKey } from '../api/index.js';
import { parseConfig, standaloneConfigSchema } from '../runtime/config.js';
import { buildGateway } from '../runtime/gateway/app.js';
import { assembleGateway, type GatewayParts } from '../runtime/gateway/assemble.js';
import { createLogger } from '../runtime/log.js';
import { FolderSource } from '../runtime/source/index.js';
import { openStore, type Store } from '../runtime/store/index.js';

export const TEST_SIGNING_SECRET = 'steward-test-signing-secret-0001';
const POLICY_PACK = new URL('../config/policies', import.meta.url).pathname;

export interface TestGatewayOptions {
  /** Register Licenses (acme: ENT, globex: PRO, initech: expired); false: community mode. @default true */
  licensed?: boolean;
  env?: Record<string, string>;
  /** Extra manifest YAML written into the temp folder. */
  manifests?: string;
  now?: () => Date;
  /** Load the built-in policy pack. @default true */
  policyPack?: boolean;
}

export interface TestGateway {
  app: FastifyInstance;
  parts: GatewayParts;
  store: Store;
  source: FolderSource;
  keys: { acme: string; globex: string; expired: string; unregistered: string };
  close(): Promise<void>;
}

/** A License manifest whose key comes from the environment variable `env`. */
export const licenseYaml = (name: string, org: string, env: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: License\nmetadata: {name: ${name}}\nspec: {organizationId: ${org}, keyFromEnv: ${env}}\n---\n`;

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-gw-'));
  const future = new Date('2099-12-31T00:00:00Z');
  const keys = {
    acme: issueLicenseKey({ tier: 'ENT', expiresAt: future, secret: TEST_SIGNING_SECRET }),
    globex: issueLicenseKey({ tier: 'PRO', expiresAt: future, secret: TEST_SIGNING_SECRET }),
    expired: issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2020-01-01T00:00:00Z'), secret: TEST_SIGNING_SECRET }),
    unregistered: issueLicenseKey({ tier: 'ENT', expiresAt: future, secret: TEST_SIGNING_SECRET, random: '00001' }),
  };
  const licensed = options.licensed ?? true;
  await writeFile(
    join(dir, 'manifests.yaml'),
    (licensed ? licenseYaml('acme', 'acme', 'ACME_KEY') + licenseYaml('globex', 'globex', 'GLOBEX_KEY') + licenseYaml('initech', 'initech', 'INITECH_KEY') : '') + (options.manifests ?? ''),
  );
  const env = { ACME_KEY: keys.acme, GLOBEX_KEY: keys.globex, INITECH_KEY: keys.expired, ...options.env };
  const config = parseConfig(standaloneConfigSchema, {
    STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
    STEWARD_DATA_DIR: dir,
    ...options.env,
  });
  const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const source = new FolderSource({ dirs: options.policyPack === false ? [dir] : [POLICY_PACK, dir], watch: false });
  await source.ready();
  const store = await openStore({});
  const parts = assembleGateway(config, { store, source, log, env, version: 'test', now: options.now });
  const app = buildGateway(parts.deps);
  await app.ready();
  return {
    app,
    parts,
    store,
    source,
    keys,
    async close() {
      await app.close();
      await parts.close();
      await store.close();
      await source.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
