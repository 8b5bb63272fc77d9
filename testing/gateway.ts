/**
 * A real gateway for tests: PGlite (or PostgreSQL when asked), the built-in policy pack from config/policies,
 * License documents in a temp folder, minted keys — nothing faked but time and the LLM endpoint.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { issueLicenseKey } from '../api/index.js';
import { gatewaySettings, standaloneSettings } from '../cmd/config/settings.js';
import { startGateway, type RunningGateway } from '../runtime/gateway/main.js';
import { buildGateway } from '../runtime/gateway/app.js';
import { assembleGateway, type GatewayParts } from '../runtime/gateway/assemble.js';
import { createLogger } from '../platform/log.js';
import { FolderSource } from '../runtime/source/index.js';
import { openStore, type Store } from '../runtime/store/index.js';
import { buildOrchestrator } from '../runtime/orchestrator/app.js';
import {
  assembleOrchestrator,
  type OrchestratorParts,
  type OrchestratorSettings,
} from '../runtime/orchestrator/assemble.js';
import { inProcessPlanForwarder } from '../runtime/gateway/plan-forward.js';
import { inProcessConnectorGateway } from '../runtime/orchestrator/plan/gateway-client.js';

export const TEST_SIGNING_SECRET = 'steward-test-signing-secret-0001';
/** The gateway-orchestrator secret of forwarded identities (X-Steward-Identity) in tests. */
export const TEST_INTERNAL_SECRET = 'steward-test-internal-secret-0123456789abcdef';
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
  /** A PostgreSQL database (and schema) instead of an in-memory PGlite: gateways that share one. */
  database?: { url: string; schema: string };
}

export interface TestGateway {
  app: FastifyInstance;
  parts: GatewayParts;
  store: Store;
  source: FolderSource;
  /** The temp folder of the manifests (and the data dir): tests change documents here. */
  dir: string;
  keys: { acme: string; globex: string; expired: string; unregistered: string };
  close(): Promise<void>;
}

/** A License manifest whose key comes from the environment variable `env`. */
export const licenseYaml = (name: string, org: string, env: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: License\nmetadata: {name: ${name}}\nspec: {organizationId: ${org}, keyFromEnv: ${env}}\n---\n`;

/**
 * An AgentConfig manifest: `replicas` in-process pool agents in the test orchestrator. With `llm`, a specialist
 * whose default provider that is; without, a coordinator (the schema requires an LLM of specialists only).
 */
export const agentConfigYaml = (name: string, replicas: number, llm?: { provider: string; model: string }) =>
  `apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: ${name}}\nspec:\n  type: ${llm ? 'specialist' : 'coordinator'}\n  domain: generic\n  description: ${name} test agent\n  capabilities: [question-answering]\n` +
  (llm ? `  llm: {provider: ${llm.provider}, model: ${llm.model}}\n` : '') +
  `  replicas: ${replicas}\n---\n`;

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
    (licensed
      ? licenseYaml('acme', 'acme', 'ACME_KEY') +
        licenseYaml('globex', 'globex', 'GLOBEX_KEY') +
        licenseYaml('initech', 'initech', 'INITECH_KEY')
      : '') + (options.manifests ?? ''),
  );
  const env = { ACME_KEY: keys.acme, GLOBEX_KEY: keys.globex, INITECH_KEY: keys.expired, ...options.env };
  const config = standaloneSettings({
    STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
    STEWARD_DATA_DIR: dir,
    ...options.env,
  });
  const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // NB: API writes (dynamic policies) go to the temp folder, never into the shipped pack.
  const source = new FolderSource({
    dirs: options.policyPack === false ? [dir] : [POLICY_PACK, dir],
    writeDir: dir,
    watch: false,
  });
  await source.ready();
  const store = await openStore(
    options.database ? { databaseUrl: options.database.url, schema: options.database.schema } : {},
  );
  // As standalone: plans' connector-call steps reach the connector routes with the forwarded identity.
  const parts = assembleGateway(config, {
    store,
    source,
    log,
    env,
    version: 'test',
    now: options.now,
    internalSecret: TEST_INTERNAL_SECRET,
  });
  await parts.ready();
  const app = buildGateway(parts.deps);
  await app.ready();
  return {
    app,
    parts,
    store,
    source,
    dir,
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

export interface TestOrchestrator {
  app: FastifyInstance;
  parts: OrchestratorParts;
  close(): Promise<void>;
}

/**
 * The orchestrator beside a test gateway, wired as `steward standalone` wires it: the gateway's credentials, rate
 * limiter, LLM providers and Prometheus registry; the agent pool in process (the AgentConfigs of the gateway's
 * manifests) unless `agentEndpoints` names remote agents. Assembles the parts (async), then returns a builder that
 * makes the app synchronously (so that a test can add hooks before fastify loads its plugins, one tick later). The
 * pool closes with the app.
 */
export async function orchestratorBuilder(
  gw: TestGateway,
  settings: Partial<OrchestratorSettings> = {},
): Promise<() => TestOrchestrator> {
  const d = gw.parts.deps;
  const parts = await assembleOrchestrator(
    {
      bodyLimitBytes: 1 << 20,
      probeIntervalMs: 200,
      internalSecret: TEST_INTERNAL_SECRET,
      connectorGateway: inProcessConnectorGateway(() => gw.app, TEST_INTERNAL_SECRET),
      ...settings,
    },
    {
      store: gw.store,
      source: gw.source,
      log: d.log,
      version: 'test',
      auth: d.auth,
      limiter: d.limiter,
      llm: d.llm,
      telemetry: d.telemetry,
      now: d.now,
    },
  );
  return () => {
    const app = buildOrchestrator(parts.deps);
    // The gateway's `/api/request` plans go to this orchestrator, as standalone wires them.
    if (parts.deps.internalSecret) d.plans = inProcessPlanForwarder(() => app, parts.deps.internalSecret);
    app.addHook('onClose', () => parts.close());
    return { app, parts, close: () => app.close() };
  };
}

/** The orchestrator beside a test gateway (see `orchestratorBuilder`), ready. */
export async function startTestOrchestrator(
  gw: TestGateway,
  settings: Partial<OrchestratorSettings> = {},
): Promise<TestOrchestrator> {
  const o = (await orchestratorBuilder(gw, settings))();
  await o.app.ready();
  return o;
}

/**
 * `steward gateway` in cluster mode, in process, against a test cluster's API server: this namespace's resources,
 * License keys signed with the test secret, status written at once, and informers and the status Lease fast enough
 * for a test. `env` adds or overrides settings.
 */
export function startClusterGateway(
  kubeconfig: string,
  o: { dataDir: string; namespace?: string; pod?: string; env?: Record<string, string> },
): Promise<RunningGateway> {
  const config = gatewaySettings({
    STEWARD_SOURCE: 'kubernetes',
    STEWARD_KUBECONFIG: kubeconfig,
    STEWARD_NAMESPACE: o.namespace ?? 'default',
    STEWARD_POD_NAME: o.pod ?? 'steward-gateway-0',
    STEWARD_ORCHESTRATOR_NAME: 'steward',
    STEWARD_HOST: '127.0.0.1',
    STEWARD_GATEWAY_PORT: '0',
    STEWARD_DATA_DIR: o.dataDir,
    STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
    STEWARD_STATUS_MIN_INTERVAL_MS: '0',
    ...o.env,
  });
  return startGateway(
    config,
    createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    {},
    {
      informer: { backoffMs: 20, maxBackoffMs: 200 },
      lease: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    },
  );
}
