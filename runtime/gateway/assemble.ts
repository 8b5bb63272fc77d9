import type { Logger } from '../../platform/log.js';
import { OAuthResource } from '../auth/oauth.js';
import { communityActive, organizationTier } from '../auth/authenticate.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { RegoPolicyEngine } from '../policy/engine.js';
import { policyObserver } from '../policy/observer.js';
import type { GatewayCoreSettings } from '../settings.js';
import { openBudgets, type BudgetsOptions } from '../budgets/index.js';
import { BackgroundWrites } from '../governed/index.js';
import type { GatewayDeps } from './deps.js';
import { OrganizationMetrics } from './org-metrics.js';
import { llmFromSettings } from '../llm/index.js';
import { outcomeRecorder } from './observe.js';
import { StewardTelemetry } from '../metrics/index.js';
import { assembleAccess } from '../auth/access.js';
import type { PlanForwarder } from './plan-forward.js';
import { ConnectorRegistry, connectionResolver, type ConnectorStatusReporter } from '../connectors/index.js';
import { ToolPins } from '../connectors/pins/pins.js';
import { descriptionScreen } from './connectors/screen.js';
import { StartupError } from '../../platform/startup-error.js';
import type { A2aParts } from '../a2a/routes.js';
import { CardSigner } from '../a2a/signer.js';

export interface GatewayParts {
  deps: GatewayDeps;
  /** The policy engine of `deps.policies`, with its per-policy load states (cluster status reporting). */
  policies: RegoPolicyEngine;
  /**
   * Resolves once the external services answer (Redis, when REDIS_URL is set) and the Connectors are loaded (their
   * pools connect in the background); rejects with a StartupError naming the setting otherwise. Call before listening.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the gateway's collaborators from its settings; shared by standalone and the gateway process. */
export function assembleGateway(
  config: GatewayCoreSettings,
  parts: {
    store: Store;
    source: DeclarativeSource;
    log: Logger;
    env: Readonly<Record<string, string | undefined>>;
    version: string;
    now?: () => Date;
    /** The process's Prometheus metrics. @default a registry of its own */
    telemetry?: StewardTelemetry;
    /** Secret keys for `secretRef`s (Connectors, Licenses): the Kubernetes source in a cluster; none standalone. */
    secrets?: (namespace: string, name: string, key: string) => string | undefined;
    /** Where connector health results go besides memory (Connector.status in a cluster). */
    connectorReporter?: ConnectorStatusReporter;
    /** Where `/api/request` plans go: the orchestrator Service, or standalone's own orchestrator; absent: 503. */
    plans?: PlanForwarder;
    /** The secret of identities orchestrators forward for plans' connector steps; absent: the header is refused. */
    internalSecret?: string;
    /** Why the process should not get traffic now (GET /readyz). */
    notReady?: () => readonly string[];
    /** Records a Kubernetes Event on a Budget whose threshold was crossed (cluster mode); absent: logged only. */
    kubeEvent?: BudgetsOptions['kubeEvent'];
  },
): GatewayParts {
  const now = parts.now ?? (() => new Date());
  const telemetry = parts.telemetry ?? new StewardTelemetry({ version: parts.version });
  const access = assembleAccess(config.access, {
    source: parts.source,
    store: parts.store,
    env: parts.env,
    log: parts.log,
    now,
    resolveSecret: parts.secrets,
  });
  const policies = new RegoPolicyEngine({
    source: parts.source,
    // NB: `module`, not `component`: the gateway's logger already binds `component`, and pino would repeat the key.
    log: parts.log.child({ module: 'policies' }),
    limits: config.policy.limits,
    // The last good version of each Policy survives a restart (ADR 0016).
    lastGood: parts.store.lastGoodPolicies,
    // PolicyExceptions expire by the gateway's clock.
    now,
    inputMaxBytes: config.policy.inputMaxBytes,
    inlineMaxBytes: config.policy.inlineMaxBytes,
    observer: policyObserver(telemetry),
  });
  telemetry.watchPolicyFailures(() => policies.failureCounts());
  parts.store.contexts.observeWrites(telemetry.storeWrite);
  parts.store.audit.observeWrites(telemetry.storeWrite);
  const { router: llm, described } = llmFromSettings(config.llm);
  // NB: connection URLs come from the environment (fromEnv) standalone; in a cluster from Secrets (secretRef) too.
  const secrets = parts.secrets;
  const resolveUrl = connectionResolver({
    env: parts.env,
    ...(secrets ? { secrets: async (ns: string, name: string, key: string) => secrets(ns, name, key) } : {}),
  });
  const connectors = new ConnectorRegistry({
    source: parts.source,
    resolveUrl,
    reporter: parts.connectorReporter,
    // NB: the tools of mcp connectors are used only as their pinned definitions (docs/connectors.md).
    pins: new ToolPins({
      store: parts.store.toolPins,
      screen: descriptionScreen(policies, parts.source),
      newTools: config.mcpNewTools,
      log: parts.log.child({ module: 'tool-pins' }),
      now,
    }),
    log: parts.log.child({ module: 'connectors' }),
    now,
  });
  const budgets = openBudgets({
    source: parts.source,
    store: parts.store,
    settings: config.budgets,
    log: parts.log,
    now,
    ...(parts.kubeEvent ? { kubeEvent: parts.kubeEvent } : {}),
  });
  const a2a: A2aParts | undefined = config.a2a.enabled
    ? {
        // NB: without STEWARD_PUBLIC_URL the mains set the listener's URL once it listens (a2a/routes.ts `listening`).
        site: { baseUrl: config.a2a.publicUrl ?? 'http://127.0.0.1', version: parts.version },
        tasks: parts.store.a2aTasks,
        push: { repo: parts.store.a2aPush, allowPrivateTargets: config.a2a.allowPrivatePushTargets },
      }
    : undefined;
  parts.log.info({ llm: described, rateLimits: access.windows, limiter: access.limiterKind }, 'gateway configured');
  const deps: GatewayDeps = {
    log: parts.log,
    store: parts.store,
    source: parts.source,
    version: parts.version,
    bodyLimitBytes: config.http.bodyLimitBytes,
    policyBodyLimitBytes: policyBodyLimit(config.http.bodyLimitBytes, config.policy.inputMaxBytes),
    connections: config.http.connections,
    now,
    auth: access.auth,
    policies,
    contextTtlMs: config.records.contextTtlMs,
    approvalTtlMs: config.records.approvalTtlMs,
    environmentName: config.environmentName,
    metrics: outcomeRecorder,
    limiter: access.limiter,
    tokens: { limiter: access.tokenLimiter, perMinute: config.access.llmTokensPerMinute },
    llmAudit: config.records.llmAudit,
    auditRawText: config.records.auditRawText,
    budgets: budgets.gate,
    backgroundWrites: new BackgroundWrites(parts.log.child({ module: 'llm-audit' }), () =>
      telemetry.llmAuditBackgroundFailures.inc(),
    ),
    requestMetrics: new OrganizationMetrics({ windowSec: 60 }),
    llm,
    connectors,
    telemetry,
    apiDocs: config.http.apiDocs,
    console: config.http.console,
    plans: parts.plans,
    internalSecret: parts.internalSecret,
    ...(config.mcpOAuth
      ? {
          mcpOAuth: new OAuthResource(config.mcpOAuth, (org) =>
            organizationTier(org, access.auth, communityActive(access.auth)),
          ),
        }
      : {}),
    notReady: parts.notReady,
    ...(a2a ? { a2a } : {}),
  };
  return {
    deps,
    policies,
    async ready() {
      await policies.restored();
      await access.ready();
      await connectors.start();
      if (a2a) a2a.signer = await cardSigner(config.a2a, parts.log);
    },
    async close() {
      access.close();
      policies.close();
      budgets.close();
      await Promise.all([llm.close(), connectors.close()]);
    },
  };
}

/** The key that signs the A2A cards, read (or made, standalone) before the gateway listens; undefined: unsigned cards. */
async function cardSigner(settings: GatewayCoreSettings['a2a'], log: Logger): Promise<CardSigner | undefined> {
  const file = settings.signingKeyFile;
  if (!file) {
    log.warn(
      { setting: 'STEWARD_A2A_SIGNING_KEY_FILE' },
      'A2A agent cards are served unsigned: set STEWARD_A2A_SIGNING_KEY_FILE to sign them',
    );
    return undefined;
  }
  try {
    const signer = await CardSigner.load(file, { generate: settings.generateKey });
    log.info(
      {
        file,
        kid: signer.kid,
        alg: signer.alg,
        publicUrl: settings.publicUrl ?? 'the listener (STEWARD_PUBLIC_URL unset)',
      },
      'A2A agent cards are signed',
    );
    return signer;
  } catch (err) {
    throw new StartupError('STEWARD_A2A_SIGNING_KEY_FILE', (err as Error).message, { cause: err });
  }
}

/**
 * The body limit of routes that evaluate their body: twice the policy input limit (JSON escapes make a text up to
 * twice as long in a body: `\n`, `\"`) plus room for the other fields, within the global body limit.
 */
export function policyBodyLimit(bodyLimitBytes: number, policyInputMaxBytes: number): number {
  return Math.min(bodyLimitBytes, 2 * policyInputMaxBytes + 64 * 1024);
}
