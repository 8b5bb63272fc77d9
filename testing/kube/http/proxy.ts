/**
 * The proxy subresources: `/api/v1/namespaces/NS/services/NAME[:PORT]/proxy/PATH` and
 * `.../pods/NAME[:PORT]/proxy/PATH` forward any verb with its headers and body to an endpoint chosen by
 * the cluster (the kubelet's network), and pass the answer back as it is.
 */
import { request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serviceUnavailable } from '../status-errors.js';
import type { ServerDeps } from './context.js';

const PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy(\/.*)?$/;

export interface ProxyRequest {
  namespace: string;
  resource: 'pods' | 'services';
  /** `NAME`, `NAME:PORT` or `SCHEME:NAME:PORT`. */
  name: string;
  /** The path to ask the target for, with the query. */
  path: string;
}

export function parseProxyPath(url: URL): ProxyRequest | undefined {
  const m = PROXY_PATH.exec(url.pathname);
  if (!m) return undefined;
  return {
    namespace: decodeURIComponent(m[1]!),
    resource: m[2] as 'pods' | 'services',
    name: decodeURIComponent(m[3]!),
    path: (m[4] ?? '/') + url.search,
  };
}

/** Headers a hop must not forward (RFC 9110 §7.6.1), plus the API server's own credentials. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'authorization',
  'host',
]);

export function handleProxy(
  deps: ServerDeps,
  p: ProxyRequest,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!deps.proxy) throw serviceUnavailable(`no endpoints available for service "${p.name}"`);
  const target = deps.proxy(p.resource, p.namespace, p.name);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) headers[k] = v;
  headers.host = `${target.host}:${target.port}`;
  // NB: `kubectl create --raw -f` sends its body without a Content-Type, which JSON servers refuse (415);
  // a real API server passes that on, this one calls a typeless body JSON.
  if (
    !req.headers['content-type'] &&
    (req.headers['transfer-encoding'] || Number(req.headers['content-length'] ?? 0) > 0)
  )
    headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const upstream = request(
      { host: target.host, port: target.port, method: req.method, path: p.path, headers },
      (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) out[k] = v;
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        answer.on('end', () => resolve());
        answer.on('error', reject);
      },
    );
    upstream.on('error', (err) =>
      reject(serviceUnavailable(`error trying to reach ${p.resource === 'pods' ? 'pod' : 'service'}: ${err.message}`)),
    );
    req.pipe(upstream);
  });
}
