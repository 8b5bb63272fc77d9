/** What every route handler gets: the request, its parsed parts, and the cluster's pieces. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from '../faults.js';
import type { Registry, ResourceType } from '../registry.js';
import type { ObjectStore } from '../store/objects.js';
import type { WatchRegistry } from '../store/watch.js';
import type { ResourceRequest } from './request-info.js';

/** Supplies pod logs (the simulated kubelet registers one later); undefined means "no logs yet". */
export type LogProvider = (
  namespace: string,
  pod: string,
  container: string,
  opts: { tailLines?: number; previous?: boolean },
) => string | undefined;

/** Streams a running container's new output (`kubectl logs -f`) until it stops; returns an unsubscribe. */
export type LogFollow = (
  namespace: string,
  pod: string,
  container: string,
  sink: { data(text: string): void; end(): void },
) => () => void;

/** Where a services/pods proxy request goes; throws an ApiError (503) when there is no endpoint. */
export type ProxyResolver = (
  resource: 'pods' | 'services',
  namespace: string,
  nameAndPort: string,
) => { host: string; port: number };

export interface ServerDeps {
  registry: Registry;
  store: ObjectStore;
  watches: WatchRegistry;
  faults: Faults;
  logs: { provider?: LogProvider; follow?: LogFollow };
  /** Set when workloads run: the target of the proxy subresources. */
  proxy?: ProxyResolver;
  /** Default for watches without timeoutSeconds. @default 30 minutes */
  defaultWatchTimeoutMs: number;
  /** Interval of BOOKMARK events. @default 60 s */
  bookmarkIntervalMs: number;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  info: ResourceRequest;
  type: ResourceType;
  deps: ServerDeps;
  /** Called for watches: events to send before the connection is cut (a dropWatch fault), if any. */
  dropWatchAfter?: number;
  /** Status code for the request log. */
  status?: number;
}

export function query(ctx: RouteContext, name: string): string | null {
  return ctx.url.searchParams.get(name);
}

export function boolParam(v: string | null): boolean {
  return v === 'true' || v === '1';
}

export function intParam(ctx: RouteContext, name: string): number | undefined {
  const v = query(ctx, name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

export function ns(ctx: RouteContext): string | undefined {
  return ctx.type.namespaced ? ctx.info.namespace || undefined : undefined;
}
