/**
 * GET, LIST and WATCH, with the response forms clients negotiate through Accept: plain JSON, a
 * `meta.k8s.io/v1 Table` (kubectl get), or PartialObjectMetadata (metadata-only clients).
 */
import type { ResourceType } from '../registry.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { startWatch, type WatchEvent, type WatchHandle } from '../store/watch.js';
import { notAcceptable } from '../status-errors.js';
import { parseIncludeObject, toTable } from '../table.js';
import { boolParam, intParam, ns, query, type RouteContext } from './context.js';
import { sendJson } from './respond.js';

export type Form = 'object' | 'table' | 'metadata';

const TABLE_CT = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** The response form an Accept header asks for (first acceptable entry wins). */
export function negotiate(accept: string | undefined): Form {
  if (!accept) return 'object';
  let sawJson = false;
  for (const part of accept.split(',')) {
    const [mt, ...rest] = part.split(';').map((s) => s.trim());
    const params = new Map(rest.map((p) => p.split('=') as [string, string]));
    const as = params.get('as');
    if (as && params.get('g') === 'meta.k8s.io' && (params.get('v') === 'v1' || params.get('v') === 'v1beta1')) {
      if (as === 'Table') return 'table';
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return 'metadata';
    }
    if (!as && (mt === 'application/json' || mt === '*/*' || mt === 'application/*' || mt === 'application/yaml'))
      sawJson = true;
  }
  if (!sawJson && accept.includes('as=')) throw notAcceptable(['application/json', 'application/yaml']);
  return 'object';
}

function apiVersion(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** Built-in typed lists omit TypeMeta on items; custom resource (unstructured) lists keep it. */
function listItem(t: ResourceType, o: JsonObject): JsonObject {
  if (!t.builtin) return o;
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

function partial(o: JsonObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

function tableOptions(ctx: RouteContext, noHeaders = false) {
  return {
    includeObject: parseIncludeObject(query(ctx, 'includeObject')),
    noHeaders,
    nowMs: ctx.deps.store.clock.now(),
  };
}

export function handleGet(ctx: RouteContext): void {
  const o = ctx.deps.store.get(ctx.type, ns(ctx), ctx.info.name);
  const form = negotiate(ctx.req.headers.accept);
  if (form === 'table') {
    const meta = isObject(o.metadata) ? o.metadata : {};
    sendJson(
      ctx.res,
      200,
      toTable(ctx.type, [o], { resourceVersion: meta.resourceVersion }, tableOptions(ctx)),
      {},
      TABLE_CT,
    );
  } else if (form === 'metadata')
    sendJson(ctx.res, 200, partial(o), {}, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
  else sendJson(ctx.res, 200, o);
}

export function handleList(ctx: RouteContext): void {
  const result = ctx.deps.store.list(ctx.type, {
    namespace: ns(ctx),
    labelSelector: query(ctx, 'labelSelector') ?? undefined,
    fieldSelector: query(ctx, 'fieldSelector') ?? undefined,
    limit: intParam(ctx, 'limit'),
    continue: query(ctx, 'continue') ?? undefined,
    resourceVersion: query(ctx, 'resourceVersion') ?? undefined,
    resourceVersionMatch: query(ctx, 'resourceVersionMatch') ?? undefined,
  });
  const listMeta: JsonObject = { resourceVersion: result.resourceVersion };
  if (result.continue) listMeta.continue = result.continue;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  const form = negotiate(ctx.req.headers.accept);
  if (form === 'table') {
    sendJson(ctx.res, 200, toTable(ctx.type, result.items, listMeta, tableOptions(ctx)), {}, TABLE_CT);
    return;
  }
  if (form === 'metadata') {
    const body = {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: listMeta,
      items: result.items.map(partial),
    };
    sendJson(ctx.res, 200, body, {}, 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    return;
  }
  sendJson(ctx.res, 200, {
    kind: ctx.type.listKind,
    apiVersion: apiVersion(ctx.type),
    metadata: listMeta,
    items: result.items.map((o) => listItem(ctx.type, o)),
  });
}

/** Soft limit on unsent watch data per connection; a consumer this far behind is cut off. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export function handleWatch(ctx: RouteContext): void {
  const { req, res, deps } = ctx;
  const form = negotiate(req.headers.accept);
  const timeoutSeconds = intParam(ctx, 'timeoutSeconds');
  const allowBookmarks = boolParam(query(ctx, 'allowWatchBookmarks'));
  let firstTable = true;
  let sent = 0;
  const dropAfter = ctx.dropWatchAfter;
  let ended = false;
  // Assigned once the watch has started; the close paths may run before that.
  const live: { timer?: NodeJS.Timeout; handle?: WatchHandle } = {};

  const finish = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(live.timer);
    live.handle?.stop();
    if (!res.writableEnded) res.end();
  };
  /** Drops the connection abruptly (no final chunk), after what was written has gone out. */
  const cut = (): void => {
    ended = true;
    clearTimeout(live.timer);
    live.handle?.stop();
    const socket = res.socket;
    if (!socket) return;
    if (!res.headersSent) start();
    res.write('', () => socket.destroy());
  };

  const encode = (ev: WatchEvent): JsonObject => {
    if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return ev.object;
    if (form === 'table') {
      const meta = isObject(ev.object.metadata) ? ev.object.metadata : {};
      const t = toTable(
        ctx.type,
        [ev.object],
        { resourceVersion: meta.resourceVersion },
        tableOptions(ctx, !firstTable),
      );
      firstTable = false;
      return t;
    }
    return form === 'metadata' ? partial(ev.object) : ev.object;
  };

  const emit = (ev: WatchEvent): void => {
    if (ended) return;
    if (!res.headersSent) start();
    res.write(`${JSON.stringify({ type: ev.type, object: encode(ev) })}\n`);
    sent++;
    if (dropAfter !== undefined && sent >= dropAfter) cut();
    else if (res.writableLength > MAX_BUFFERED_BYTES) cut();
  };

  const start = (): void => {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
  };

  // Selector errors throw here, before any header is written, and become a plain Status response.
  const handle = startWatch(
    deps.store,
    deps.watches,
    ctx.type,
    {
      namespace: ns(ctx),
      labelSelector: query(ctx, 'labelSelector') ?? undefined,
      fieldSelector: query(ctx, 'fieldSelector') ?? undefined,
      resourceVersion: query(ctx, 'resourceVersion') ?? undefined,
      allowWatchBookmarks: allowBookmarks,
      sendInitialEvents: boolParam(query(ctx, 'sendInitialEvents')),
      bookmarkIntervalMs: deps.bookmarkIntervalMs,
    },
    emit,
    () => {
      if (!ended) {
        ended = true;
        clearTimeout(live.timer);
        if (!res.headersSent) start();
        if (!res.writableEnded) res.end();
      }
    },
  );
  live.handle = handle;
  if (ended) {
    // The stream ended while the initial events were sent (a drop fault, or an ERROR event).
    handle.stop();
    return;
  }
  if (!res.headersSent) start();
  if (dropAfter === 0) {
    cut();
    return;
  }
  const timeoutMs =
    timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : deps.defaultWatchTimeoutMs;
  live.timer = setTimeout(() => {
    handle.bookmark();
    finish();
  }, timeoutMs);
  live.timer.unref();
  req.on('close', finish);
  res.on('close', finish);
  ctx.status = 200;
}
