/**
 * A2A on the gateway (docs/a2a.md): each AgentConfig's signed Agent Card and endpoint, whose messages run as that
 * agent's governed work, and the Orchestrator's, whose messages run as plans (executor.ts). The protocol itself
 * (methods, task lifecycle, SSE framing) is the official SDK's request handler, mounted on this fastify instance;
 * what it runs, where tasks live and where push notifications go are ours. This file holds the per-request set-up
 * both bindings share and the JSON-RPC binding; rest.ts the HTTP+JSON one.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AgentConfigResource } from '../../api/index.js';
import { identityOf } from '../auth/plugin.js';
import { communityActive, narrowTenant, type AuthDeps } from '../auth/authenticate.js';
import type { LlmRouteOptions } from '../gateway/deps.js';
import { ApiError, echo } from '../http/errors.js';
import { jsonBodyParser } from '../http/json-parser.js';
import { auditText } from '../governed/index.js';
import type { DeclarativeSource } from '../source/index.js';
import type { A2aTaskRepository } from '../store/a2a-tasks.js';
import type { A2aPushRepository } from '../store/a2a-push.js';
import { CARD_KEYS_PATH, ORCHESTRATOR_CARD_PATH, ORCHESTRATOR_ENDPOINT_PATH } from '../../api/index.js';
import { agentCard, orchestratorCard, type CardSite } from './cards.js';
import { CALL_STATE, GovernedAgentExecutor, type A2aCall } from './executor.js';
import type { CardSigner } from './signer.js';
import { loadSdk, type Sdk } from './sdk.js';
import { StoredTasks } from './task-store.js';
import { StoredPushConfigs, WebhookPushSender } from './push.js';
import { restRoutes } from './rest.js';
import { activated, isStream, sse, type A2aPrepare, type A2aRequest } from './request.js';

/** The A2A server's own parts: where cards say they are, the key that signs them, the task table. */
export interface A2aParts {
  /** The gateway's public URL and Steward's version; whether cards name credentials is read per request. */
  site: Omit<CardSite, 'open'>;
  /** Absent: cards go out unsigned (and the start-up log says so). */
  signer?: CardSigner;
  tasks: A2aTaskRepository;
  /** Push notification configs, delivered as the orchestrator's webhooks (push.ts). */
  push: { repo: A2aPushRepository; allowPrivateTargets: boolean };
}

export interface A2aRouteOptions extends LlmRouteOptions {
  source: DeclarativeSource;
  /** Community mode (no credentials, and cards that name none). */
  auth: AuthDeps;
  a2a: A2aParts;
}

/**
 * The parts that outlive a request: the SDK, the executor (its running tasks), the task buses (for SubscribeToTask),
 * and where push configs live and go.
 */
interface Server {
  sdk: Sdk;
  executor: GovernedAgentExecutor;
  tasks: StoredTasks;
  buses: InstanceType<Sdk['DefaultExecutionEventBusManager']>;
  pushConfigs: StoredPushConfigs;
  pushSender: WebhookPushSender;
}

export const a2aRoutes: FastifyPluginAsync<A2aRouteOptions> = async (app, deps) => {
  // NB: A2A's own media type is JSON too (clients may send it; the SDK's server takes both): this plugin's routes only.
  app.addContentTypeParser('application/a2a+json', { parseAs: 'string' }, jsonBodyParser(app, 'gateway'));
  let server: Promise<Server> | undefined;
  const started = () =>
    (server ??= loadSdk().then((sdk) => {
      const push = {
        ...deps.a2a.push,
        log: deps.log.child({ module: 'a2a-push' }),
        now: deps.now ?? (() => new Date()),
      };
      return {
        sdk,
        executor: new GovernedAgentExecutor(deps, sdk),
        tasks: new StoredTasks(
          deps.a2a.tasks,
          sdk,
          (message) => new sdk.RequestMalformedError({ message }),
          (identity, text) => auditText(deps, identity, text).text,
        ),
        buses: new sdk.DefaultExecutionEventBusManager(),
        pushConfigs: new StoredPushConfigs(push, sdk),
        pushSender: new WebhookPushSender(push, sdk),
      };
    }));
  /** Signed cards by card key, each with the unsigned card it signs: a card that changed in any way is signed again. */
  const signed = new Map<string, { text: string; card: Promise<Record<string, unknown>> }>();
  const cardOf = (agent: AgentConfigResource | undefined) => {
    const site = { ...deps.a2a.site, open: communityActive(deps.auth) };
    const wire = agent ? agentCard(site, agent) : orchestratorCard(site, deps.source.list('AgentConfig'));
    const text = JSON.stringify(wire);
    const key = cardKey(agent);
    const cached = signed.get(key);
    if (cached?.text === text) return cached.card;
    const card = deps.a2a.signer
      ? deps.a2a.signer.sign(wire, deps.a2a.site.baseUrl + CARD_KEYS_PATH)
      : Promise.resolve(wire);
    card.catch(() => signed.delete(key)); // NB: a failed signature is tried again by the next request
    signed.set(key, { text, card });
    // NB: the cards of deleted AgentConfigs go when a new card is signed, so the cache holds the current ones only.
    const current = new Set(['orchestrator', ...deps.source.list('AgentConfig').map((a) => cardKey(a))]);
    for (const k of signed.keys()) if (!current.has(k)) signed.delete(k);
    return card;
  };

  const agentNamed = (name: string): AgentConfigResource => {
    const agent = deps.source.list('AgentConfig').find((a) => a.metadata.name === name);
    if (!agent) throw new ApiError('gateway', 'NOT_FOUND', `no agent named ${echo(name)}`);
    return agent;
  };
  /** The Orchestrator's card exists where plans can run: standalone, or a gateway given STEWARD_ORCHESTRATOR_URL. */
  const orchestrator = (): undefined => {
    if (!deps.plans)
      throw new ApiError('gateway', 'NOT_FOUND', 'no orchestrator: set STEWARD_ORCHESTRATOR_URL to serve its card');
    return undefined;
  };

  // Cards are public, as A2A discovery wants: they name the agents, never a caller's data.
  app.get<{ Params: { name: string } }>(
    '/a2a/agents/:name/.well-known/agent-card.json',
    { config: { auth: { require: 'none' } } },
    async (req, reply) => {
      const card = await cardOf(agentNamed(req.params.name));
      void reply.header('cache-control', 'public, max-age=60');
      return card;
    },
  );
  app.get(ORCHESTRATOR_CARD_PATH, { config: { auth: { require: 'none' } } }, async (_req, reply) => {
    const card = await cardOf(orchestrator());
    void reply.header('cache-control', 'public, max-age=60');
    return card;
  });
  app.get(CARD_KEYS_PATH, { config: { auth: { require: 'none' } } }, async (_req, reply) => {
    if (!deps.a2a.signer) throw new ApiError('gateway', 'NOT_FOUND', 'the agent cards are not signed');
    void reply.header('cache-control', 'public, max-age=300');
    return deps.a2a.signer.jwks();
  });

  const prepare: A2aPrepare = async (req, name, tenant, binding) => {
    const agent = name === undefined ? orchestrator() : agentNamed(name);
    // NB: the tenant a request names is read as X-Tenant-ID is: a key bound to a tenant may name only its own (403).
    if (tenant !== undefined && typeof tenant !== 'string')
      throw new ApiError('gateway', 'INVALID_REQUEST', 'tenant must be a string');
    const identity = narrowTenant(identityOf(req), tenant || undefined);
    const { sdk, executor, tasks, buses, pushConfigs, pushSender } = await started();
    const card = sdk.AgentCard.fromJSON(await cardOf(agent));
    const version = header(req.headers['a2a-version']);
    const clientId = identity.clientId ?? identity.organizationId;
    const call: A2aCall = {
      identity,
      clientId,
      userToken: identity.clientId ?? 'anonymous',
      agent,
      scope: {
        organizationId: identity.organizationId,
        tenantId: identity.tenantId ?? null,
        owner: clientId,
        agent: cardKey(agent),
      },
    };
    const ctx = new sdk.ServerCallContext({
      requestedExtensions: sdk.Extensions.parseServiceParameter(header(req.headers['a2a-extensions'])),
      user: { isAuthenticated: true, userName: `${identity.organizationId}/${identity.tenantId ?? ''}/${clientId}` },
      ...(version ? { requestedVersion: version } : {}),
      state: new Map([[CALL_STATE, call]]),
    });
    sdk.validateVersion(ctx.requestedVersion, card, binding);
    const handler = new sdk.DefaultRequestHandler(card, tasks, executor, buses, pushConfigs, pushSender);
    return { sdk, handler, ctx };
  };

  const rpc = async (req: FastifyRequest<{ Params: { name?: string }; Body: unknown }>, reply: FastifyReply) => {
    const body = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ApiError('gateway', 'INVALID_REQUEST', 'the body must be one JSON-RPC 2.0 request object');
    const params = (body as { params?: unknown }).params;
    const tenant = typeof params === 'object' && params !== null ? (params as { tenant?: unknown }).tenant : undefined;
    const id = (body as { id?: unknown }).id ?? null;
    const errorOf = (sdk: Sdk, err: unknown) => ({
      jsonrpc: '2.0',
      id,
      error: sdk.JsonRpcTransportHandler.mapToJSONRPCError(err),
    });
    let a2a: A2aRequest;
    try {
      a2a = await prepare(req, req.params.name, tenant, 'JSONRPC');
    } catch (err) {
      if (err instanceof ApiError) throw err;
      return errorOf((await started()).sdk, err);
    }
    const { sdk, handler, ctx } = a2a;
    const out = await new sdk.JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, ctx);
    activated(reply, a2a);
    if (!isStream(out)) return out;
    return sse(reply, out, {
      frame: (event) => sdk.formatSSEEvent(event),
      early: (err) => errorOf(sdk, err),
      late: (err) => sdk.formatSSEErrorEvent(errorOf(sdk, err)),
    });
  };
  // The card names the URL with its trailing slash; the one without it is the same endpoint.
  const options = {
    bodyLimit: deps.policyBodyLimitBytes,
    config: { auth: { require: 'any', feature: 'llm' } },
  } as const;
  app.post('/a2a/agents/:name/', options, rpc);
  app.post('/a2a/agents/:name', options, rpc);
  app.post(ORCHESTRATOR_ENDPOINT_PATH, options, rpc);
  restRoutes(app, { prepare, options });
};

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}

/** A card's key in the task table and the card cache: an agent's `namespace/name`, or `orchestrator`. */
function cardKey(agent: AgentConfigResource | undefined): string {
  return agent ? `${agent.metadata.namespace ?? ''}/${agent.metadata.name}` : 'orchestrator';
}

/**
 * The cards' URL when STEWARD_PUBLIC_URL is not set: the gateway's listener as this machine reaches it (an address
 * of every interface is reached on loopback).
 */
export function listening(a2a: A2aParts | undefined, configured: string | undefined, address: unknown): void {
  if (!a2a || configured !== undefined) return;
  if (typeof address !== 'object' || address === null) return;
  const { address: host, port } = address as { address: string; port: number };
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  a2a.site.baseUrl = `http://${reachable}:${port}`;
}
