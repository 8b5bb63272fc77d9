/**
 * The HTTP front: node:http (for direct control of chunked watch streams), routing of discovery,
 * OpenAPI and resource paths, injected faults and latency, and the request log.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  serverVersion,
  wantsAggregated,
} from '../discovery.js';
import type { RequestFacts, RequestLog, Verb } from '../faults.js';
import { OpenApiCache } from '../openapi.js';
import { ApiError, methodNotAllowed } from '../status-errors.js';
import type { ResourceRequest } from './request-info.js';
import { parsePath } from './request-info.js';
import type { RouteContext, ServerDeps } from './context.js';
import { handleGet, handleList, handleWatch } from './read.js';
import { handlePatch } from './patch.js';
import { handleProxy, parseProxyPath } from './proxy.js';
import { sendError, sendJson } from './respond.js';
import { handleGetScale, handleLog, handlePatchScale, handleUpdateScale } from './subresources.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleUpdate } from './write.js';

export interface HttpServerOptions {
  tls?: { key: string | Buffer; cert: string | Buffer };
  requests: RequestLog;
}

const NOT_FOUND = new ApiError({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
});

function verbOf(method: string, info: ResourceRequest, url: URL): Verb | undefined {
  const watch = url.searchParams.get('watch');
  switch (method) {
    case 'GET':
      if (!info.name) return watch === 'true' || watch === '1' ? 'watch' : 'list';
      return 'get';
    case 'POST':
      return info.name ? undefined : 'create';
    case 'PUT':
      return info.name ? 'update' : undefined;
    case 'PATCH':
      return info.name ? 'patch' : undefined;
    case 'DELETE':
      return info.name ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

type Handler = (ctx: RouteContext) => void | Promise<void>;

function routeFor(verb: Verb, sub: string): Handler | undefined {
  if (sub === '') {
    const table: Record<Verb, Handler> = {
      get: handleGet,
      list: handleList,
      watch: handleWatch,
      create: handleCreate,
      update: (c) => handleUpdate(c),
      patch: (c) => handlePatch(c),
      delete: handleDelete,
      deletecollection: handleDeleteCollection,
    };
    return table[verb];
  }
  if (sub === 'status') {
    if (verb === 'get') return handleGet;
    if (verb === 'update') return (c) => handleUpdate(c, 'status');
    if (verb === 'patch') return (c) => handlePatch(c, 'status');
  }
  if (sub === 'scale') {
    if (verb === 'get') return handleGetScale;
    if (verb === 'update') return handleUpdateScale;
    if (verb === 'patch') return handlePatchScale;
  }
  if (sub === 'log' && verb === 'get') return handleLog;
  return undefined;
}

export function createApiServer(deps: ServerDeps, opts: HttpServerOptions): Server {
  const openapi = new OpenApiCache(deps.registry);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void serve(deps, openapi, opts.requests, req, res);
  };
  const server = opts.tls
    ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 5_000;
  return server;
}

async function serve(
  deps: ServerDeps,
  openapi: OpenApiCache,
  log: RequestLog,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const entry: Parameters<RequestLog['add']>[0] = {
    at: started,
    method,
    path: url.pathname,
    query: url.search,
    status: 0,
    durationMs: 0,
    userAgent: req.headers['user-agent'] ?? '',
    contentType: req.headers['content-type'],
  };
  res.on('finish', () => {
    entry.status = res.statusCode;
    entry.durationMs = Date.now() - started;
  });
  log.add(entry);
  try {
    const p = parsePath(url.pathname);
    if (p.kind !== 'resource') {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
      serveStatic(deps, openapi, p, req, res, url);
      return;
    }
    const info = p.info;
    const proxy = parseProxyPath(url);
    if (proxy) {
      Object.assign(entry, {
        resource: proxy.resource,
        subresource: 'proxy',
        namespace: proxy.namespace,
        name: proxy.name,
      });
      await handleProxy(deps, proxy, req, res);
      return;
    }
    const type = deps.registry.lookup(info.group, info.version, info.resource);
    const verb = verbOf(method, info, url);
    entry.verb = verb;
    entry.group = info.group;
    entry.resource = info.resource;
    entry.subresource = info.subresource;
    entry.namespace = info.namespace;
    entry.name = info.name;
    if (!type) throw NOT_FOUND;
    if (!verb) throw methodNotAllowed();
    const facts: RequestFacts = {
      verb,
      group: info.group,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    const delay = deps.faults.delayFor(facts);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const fault = deps.faults.take(facts);
    if (fault?.kind === 'error') {
      entry.fault = fault.label;
      sendError(res, fault.error);
      return;
    }
    // Namespaced paths need a namespace except for lists and watches across all namespaces.
    if (type.namespaced && !info.namespace && verb !== 'list' && verb !== 'watch' && verb !== 'deletecollection')
      throw NOT_FOUND;
    if (!type.namespaced && info.namespace) throw NOT_FOUND;
    if (info.subresource && !subresourceServed(type, info.subresource)) throw NOT_FOUND;
    const route = routeFor(verb, info.subresource);
    if (!route) throw methodNotAllowed();
    const ctx: RouteContext = { req, res, url, info, type, deps };
    if (fault?.kind === 'dropWatch') {
      entry.fault = fault.label;
      ctx.dropWatchAfter = fault.afterEvents;
    }
    await route(ctx);
  } catch (err) {
    if (res.headersSent) {
      res.socket?.destroy();
      return;
    }
    sendError(res, err);
  }
}

function subresourceServed(type: RouteContext['type'], sub: string): boolean {
  if (sub === 'status') return type.subresources.status;
  if (sub === 'scale') return type.subresources.scale !== undefined;
  if (sub === 'log') return type.subresources.log === true;
  return false;
}

function serveStatic(
  deps: ServerDeps,
  openapi: OpenApiCache,
  p: ReturnType<typeof parsePath>,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): void {
  const reg = deps.registry;
  const accept = req.headers.accept;
  const host = req.headers.host ?? '127.0.0.1';
  switch (p.kind) {
    case 'version':
      return sendJson(res, 200, serverVersion());
    case 'healthz':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    case 'api':
    case 'apis': {
      const agg = wantsAggregated(accept);
      if (agg) {
        const body = aggregatedDiscovery(reg, p.kind === 'api', `apidiscovery.k8s.io/${agg}`);
        return sendJson(
          res,
          200,
          body,
          { Vary: 'Accept' },
          `application/json;g=apidiscovery.k8s.io;v=${agg};as=APIGroupDiscoveryList`,
        );
      }
      return sendJson(res, 200, p.kind === 'api' ? apiVersions(host) : apiGroupList(reg), { Vary: 'Accept' });
    }
    case 'group': {
      const doc = apiGroupDoc(reg, p.group);
      if (!doc) throw NOT_FOUND;
      return sendJson(res, 200, doc);
    }
    case 'groupVersion': {
      const doc = apiResourceList(reg, p.group, p.version);
      if (!doc) throw NOT_FOUND;
      return sendJson(res, 200, doc);
    }
    case 'openapi-v3-root':
      return sendJson(res, 200, openapi.index());
    case 'openapi-v3': {
      const text = openapi.document(p.path);
      if (!text) throw NOT_FOUND;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        'Cache-Control': url.searchParams.has('hash') ? 'public, immutable' : 'no-cache, private',
      });
      res.end(text);
      return;
    }
    case 'root':
      return sendJson(res, 200, { paths: ['/api', '/api/v1', '/apis', '/openapi/v3', '/version', '/healthz'] });
    default:
      // NB: kubectl tolerates a missing /openapi/v2 and then uses its compiled-in types for apply patches.
      throw NOT_FOUND;
  }
}
