/**
 * The operator's probe endpoints on plain node:http (three fixed answers need no framework):
 * `GET /healthz` answers 200 while the process serves; `GET /readyz` answers 200 once the informers have their
 * first lists and until draining starts. A standby replica is ready too: readiness is not leadership.
 * `GET /metrics` is the Prometheus scrape (text format 0.0.4), on every replica: a standby says so with
 * `steward_operator_leader 0`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the Prometheus scrape is served (the chart's ServiceMonitor points here). */
export const METRICS_PATH = '/metrics';

export interface ProbeServer {
  /** `http://host:port`. */
  url: string;
  close(): Promise<void>;
}

export interface ProbeServerOptions {
  host: string;
  port: number;
  ready: () => boolean;
  /** `GET /metrics`; absent: 404. */
  metrics?: () => Promise<{ contentType: string; text: string }>;
}

export async function startProbeServer(opts: ProbeServerOptions): Promise<ProbeServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const answer = (status: number, text: string, contentType = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'method not allowed\n');
    if (path === '/healthz' || path === '/livez') return answer(200, 'ok\n');
    if (path === '/readyz') return opts.ready() ? answer(200, 'ok\n') : answer(503, 'not ready\n');
    if (path === METRICS_PATH && opts.metrics) {
      opts.metrics().then(
        ({ contentType, text }) => answer(200, text, contentType),
        // NB: a collect that throws is a bug of ours; the scrape fails rather than showing partial figures.
        () => answer(500, 'metrics collection failed\n'),
      );
      return;
    }
    answer(404, 'not found\n');
  });
  // NB: probes are short; a kubelet that leaves a connection open must not hold the shutdown.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
