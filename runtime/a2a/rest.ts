/**
 * A2A 1.0's HTTP+JSON binding (docs/a2a.md, Paths): the same request handler as the JSON-RPC binding, behind the
 * paths, methods, bodies and status codes of the SDK's express REST server, under each card's URL and under
 * `{tenant}/` below it. The per-request set-up (identity, tenant, version, call context) is routes.ts's `prepare`;
 * failures the SDK knows are answered in the binding's error shape (`{error: {code, status, message, details}}`),
 * Steward's own (credentials, tenant) in Steward's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ListTasksResponse } from '@a2a-js/sdk';
import { ApiError } from '../http/errors.js';
import { activated, isStream, sse, type A2aPrepare, type A2aRequest } from './request.js';
import { loadSdk, type Sdk } from './sdk.js';

export interface RestRouteOptions {
  prepare: A2aPrepare;
  /** The JSON-RPC routes' options: credentials, feature, body limit. */
  options: RouteShorthandOptions;
}

/** A task id in a path that goes on with `:verb` (find-my-way needs the pattern to end the parameter there). */
const TASK = ':taskId(^[^:/]+)';

interface RouteTypes {
  Params: { name?: string; tenant?: string; taskId?: string; configId?: string };
  Querystring: Record<string, string | undefined>;
  Body: unknown;
}
type Req = FastifyRequest<RouteTypes>;

/** One method: what it answers (a JSON body, or nothing with 204), from the set-up request. */
type Method = (a2a: A2aRequest, req: Req, reply: FastifyReply) => Promise<unknown>;

export function restRoutes(app: FastifyInstance, o: RestRouteOptions): void {
  const route = (method: 'GET' | 'POST' | 'DELETE', path: string, run: Method) => {
    const handler = async (req: Req, reply: FastifyReply) => {
      // NB: the path's tenant is the one that counts, as the SDK's server has it; else the body's or the query's.
      const tenant = req.params.tenant ?? bodyField(req.body, 'tenant') ?? req.query.tenant;
      try {
        const a2a = await o.prepare(req, req.params.name, tenant, 'HTTP+JSON');
        const out = await run(a2a, req, reply);
        activated(reply, a2a);
        return out;
      } catch (err) {
        if (err instanceof ApiError) throw err;
        // NB: the SDK is loaded once a request got this far (prepare loads it before the version check).
        return restError(reply, await loadSdk(), err);
      }
    };
    for (const base of ['/a2a/agents/:name', '/a2a'])
      for (const prefix of [base, `${base}/:tenant`])
        app.route<RouteTypes>({ method, url: prefix + path, ...o.options, onRequest: bodiless, handler });
  };

  route('POST', '/message::send', async ({ sdk, handler, ctx }, req) => {
    const result = await handler.sendMessage(sendRequest(sdk, req.body), ctx);
    const payload =
      'messageId' in result ? { $case: 'message' as const, value: result } : { $case: 'task' as const, value: result };
    return sdk.SendMessageResponse.toJSON({ payload });
  });
  route('POST', '/message::stream', async (a2a, req, reply) =>
    stream(a2a, reply, a2a.handler.sendMessageStream(sendRequest(a2a.sdk, req.body), a2a.ctx)),
  );
  route('GET', `/tasks/${TASK}`, async ({ sdk, handler, ctx }, req) => {
    const historyLength = req.query.historyLength;
    const task = await handler.getTask(
      {
        id: req.params.taskId!,
        tenant: '',
        historyLength: historyLength === undefined ? undefined : count(sdk, 'historyLength', historyLength, 0),
      },
      ctx,
    );
    return sdk.Task.toJSON(task);
  });
  route('GET', '/tasks', async ({ sdk, handler, ctx }, req) => {
    const q = req.query;
    const includeArtifacts = q.includeArtifacts === 'true';
    const listed = await handler.listTasks(
      {
        tenant: '',
        contextId: q.contextId ?? '',
        status: q.status ? sdk.taskStateFromJSON(/^\d+$/.test(q.status) ? Number(q.status) : q.status) : 0,
        pageSize: q.pageSize ? count(sdk, 'pageSize', q.pageSize, 1) : undefined,
        pageToken: q.pageToken ?? '',
        historyLength: q.historyLength ? count(sdk, 'historyLength', q.historyLength, 0) : undefined,
        statusTimestampAfter: q.statusTimestampAfter || undefined,
        includeArtifacts,
      },
      ctx,
    );
    return listJson(sdk, listed, includeArtifacts);
  });
  route('POST', `/tasks/${TASK}::cancel`, async ({ sdk, handler, ctx }, req) =>
    sdk.Task.toJSON(await handler.cancelTask({ id: req.params.taskId!, tenant: '', metadata: {} }, ctx)),
  );
  for (const method of ['GET', 'POST'] as const)
    route(method, `/tasks/${TASK}::subscribe`, async (a2a, req, reply) =>
      stream(a2a, reply, a2a.handler.resubscribe({ id: req.params.taskId!, tenant: '' }, a2a.ctx)),
    );
  route('POST', `/tasks/${TASK}/pushNotificationConfigs`, async ({ sdk, handler, ctx }, req, reply) => {
    const body = typeof req.body === 'object' && req.body !== null ? req.body : {};
    const config = sdk.TaskPushNotificationConfig.fromJSON({ ...body, taskId: req.params.taskId });
    const created = await handler.createTaskPushNotificationConfig(config, ctx);
    void reply.code(201);
    return sdk.TaskPushNotificationConfig.toJSON(created);
  });
  route('GET', `/tasks/${TASK}/pushNotificationConfigs`, async ({ sdk, handler, ctx }, req) => {
    const listed = await handler.listTaskPushNotificationConfigs(
      { taskId: req.params.taskId!, pageSize: 0, pageToken: '', tenant: '' },
      ctx,
    );
    return sdk.ListTaskPushNotificationConfigsResponse.toJSON(listed);
  });
  route('GET', `/tasks/${TASK}/pushNotificationConfigs/:configId`, async ({ sdk, handler, ctx }, req) => {
    const config = await handler.getTaskPushNotificationConfig(
      { taskId: req.params.taskId!, id: req.params.configId!, tenant: '' },
      ctx,
    );
    return sdk.TaskPushNotificationConfig.toJSON(config);
  });
  route('DELETE', `/tasks/${TASK}/pushNotificationConfigs/:configId`, async ({ handler, ctx }, req, reply) => {
    await handler.deleteTaskPushNotificationConfig(
      { taskId: req.params.taskId!, id: req.params.configId!, tenant: '' },
      ctx,
    );
    return reply.code(204).send();
  });
}

/**
 * NB: the SDK's client sends `Content-Type: application/json` on requests without a body (cancel, subscribe, delete),
 * which the SDK's server takes; fastify would refuse the empty JSON, so a request with no body has no content type.
 */
async function bodiless(req: FastifyRequest): Promise<void> {
  const { headers } = req;
  if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0')
    delete headers['content-type'];
}

/** A SendMessage body, with what the SDK's REST server checks before the handler does. */
function sendRequest(sdk: Sdk, body: unknown) {
  const request = sdk.SendMessageRequest.fromJSON(body ?? {});
  if (!request.message) throw new sdk.RequestMalformedError('message is required');
  if (!request.message.messageId) throw new sdk.RequestMalformedError('message.messageId is required');
  return request;
}

/** An event stream of StreamResponses; a failure before the first event is an error answer with its status. */
async function stream(
  { sdk }: A2aRequest,
  reply: FastifyReply,
  events: AsyncGenerator<unknown, void, undefined>,
): Promise<unknown> {
  if (!isStream(events)) throw new Error('a streaming method answered no stream');
  return sse(reply, events, {
    frame: (event) => sdk.formatSSEEvent(sdk.StreamResponse.toJSON(event as never)),
    early: (err) => restError(reply, sdk, err),
    late: (err) => sdk.formatSSEErrorEvent(sdk.toRestErrorBody(err, sdk.restStatusFor(err))),
  });
}

/** The binding's error answer: the status the SDK gives the error (500 for one it does not know), and its body. */
function restError(reply: FastifyReply, sdk: Sdk, err: unknown) {
  const status = sdk.restStatusFor(err);
  return reply.code(status).send(sdk.toRestErrorBody(err, status));
}

/** A whole number of a query parameter, at least `min`, or the binding's "malformed request". */
function count(sdk: Sdk, name: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min)
    throw new sdk.RequestMalformedError(`${name} must be an integer of at least ${min}`);
  return n;
}

/** A ListTasks answer as the binding sends it: every field present, artifacts as an empty list when asked for. */
function listJson(sdk: Sdk, listed: ListTasksResponse, includeArtifacts: boolean): Record<string, unknown> {
  const wire = sdk.ListTasksResponse.toJSON(listed) as { tasks?: Record<string, unknown>[] };
  return {
    nextPageToken: '',
    pageSize: 0,
    totalSize: 0,
    ...wire,
    tasks: (wire.tasks ?? []).map((t) => (includeArtifacts ? { artifacts: [], ...t } : t)),
  };
}

function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}
